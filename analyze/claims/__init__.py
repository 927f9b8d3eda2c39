"""The claim readers: from a message's text to its performance claims (extract.py), with the
lexer of figures and units (lexer/) and the readers of tables, lists, prose and shell
commands (tables/, lists/, prose/, shell/). docs/claims.md says what counts as a claim."""
