"""packcheck fixture generators: shared writer.

Every generator module (generators/gen_*.py) defines `generate(out: Corpus)` and writes cases with
`out.case(...)`. Bytes come from the real upstream libraries; this package only lays them out as a
corpus (CONTRACT section 4) and pins them.
"""
