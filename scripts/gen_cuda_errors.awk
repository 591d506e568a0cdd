# Reads cuda.h and prints a C table of CUresult values: { code, "NAME", "description" },
# the description being the doc comment cuda.h gives that value, joined into one line.
BEGIN { inenum = 0; text = ""; print "/* Generated from cuda.h by scripts/gen_cuda_errors.awk. */" }
/typedef enum cudaError_enum/ { inenum = 1; next }
inenum && /} CUresult;/ { inenum = 0 }
!inenum { next }
/\/\*\*/ { text = ""; incomment = 1; next }
incomment && /\*\// { incomment = 0; next }
incomment {
    line = $0
    sub(/^[ \t]*\*[ \t]?/, "", line)
    if (line ~ /^\\deprecated/) next
    gsub(/\\(p|ref|e|c) /, "", line); gsub(/::/, "", line)
    gsub(/\\/, "\\\\", line); gsub(/"/, "\\\"", line)
    sub(/[ \t]+$/, "", line)
    if (line == "") next
    text = (text == "") ? line : text " " line
    next
}
/^[ \t]*CUDA_[A-Z0-9_]+[ \t]*=[ \t]*[0-9]+/ {
    name = $1; code = $0
    sub(/^[^=]*=[ \t]*/, "", code); sub(/[^0-9].*$/, "", code)
    printf "{ %s, \"%s\", \"%s\" },\n", code, name, text
    text = ""
}
