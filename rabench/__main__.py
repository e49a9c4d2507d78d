import sys

try:
    from rabench.cli.main import main
except KeyboardInterrupt:  # Ctrl-C while starting: one line and 130, as anywhere else
    sys.stderr.write("rabench: interrupted\n")
    sys.exit(130)

sys.exit(main())
