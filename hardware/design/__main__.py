import sys

from hardware.design.build import main

sys.exit(main())
