# Readers of hyperfine's --export-json files, sourced by the bench/*.sh scripts.

median() {  # median wall seconds of a hyperfine JSON export
  python3 -c 'import json, statistics, sys
print("%.3f" % statistics.median(json.load(open(sys.argv[1]))["results"][0]["times"]))' "$1"
}
