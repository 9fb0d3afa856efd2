"""``python -m gradtrack``: the version, the build and the threads, for a bug report."""

import gradtrack


def main():
    print(gradtrack.__config__.show(), end="")
    print(gradtrack.__config__.parallel_info(), end="")


if __name__ == "__main__":
    main()
