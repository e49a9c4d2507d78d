import sys

from rabench.cli.main import main

sys.exit(main())
