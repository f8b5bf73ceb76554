"""The table in a browser: ``cardarena serve`` (extra ``web``)."""
