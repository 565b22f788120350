#!/bin/bash
# kernel/series-names.sh: print the patch names kernel/series lists, in order,
# one per line (# comments, trailing blanks and empty lines dropped). The one
# reading of kernel/series for build.sh, bisect-build.sh and the series tests.
exec sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$(dirname "$0")/series"
