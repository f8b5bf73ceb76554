"""Random-play throughput beside PettingZoo's classic envs: ``cardarena bench`` as a script.

The code lives in ``cardarena.training.bench`` so that the installed ``cardarena`` command can
run it too.
"""

from cardarena.training.bench import main

if __name__ == "__main__":
    main()
