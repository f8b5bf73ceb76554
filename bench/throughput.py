"""Random-play throughput beside PettingZoo's classic envs: ``cardarena bench`` as a script
(``make bench``). The code is this package's (``cardarena.bench``), which the installed
``cardarena`` command runs too.
"""

from cardarena.bench import main

if __name__ == "__main__":
    main()
