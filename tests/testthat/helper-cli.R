# Errors and warnings are formatted by cli, which wraps them at the console
# width; expectations match the messages' text, so the tests see them on one
# line (users see them wrapped).
options(cli.condition_width = Inf)
