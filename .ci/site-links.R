# Checks the links of the documentation site built by `make docs`: every
# relative href and src of every page must name a file of the site (anchors
# within a page are not checked).  Links to other sites are listed, not
# followed (the build needs no network).  Exit status 1 on a broken link.
args <- commandArgs(TRUE)
site <- if (length(args)) args[1] else "docs"
pages <- list.files(site, "\\.html$", recursive = TRUE, full.names = TRUE)
broken <- character()
external <- character()
for (p in pages) {
  html <- paste(readLines(p, warn = FALSE), collapse = "\n")
  m <- regmatches(html, gregexpr("(href|src)=\"[^\"]*\"", html))[[1]]
  urls <- sub("^(href|src)=\"([^\"]*)\"$", "\\2", m)
  for (u in unique(urls)) {
    if (!nzchar(u) || startsWith(u, "#") || grepl("^(mailto|javascript|data):", u)) next
    if (grepl("^[a-z]+://", u)) { external <- c(external, u); next }
    target <- sub("[?#].*$", "", u)
    if (!nzchar(target)) next
    path <- if (startsWith(target, "/")) file.path(site, target) else file.path(dirname(p), target)
    path <- utils::URLdecode(path)
    if (!file.exists(path)) broken <- c(broken, sprintf("%s: %s", sub(paste0("^", site, "/"), "", p), u))
  }
}
ext <- sort(unique(sub("^([a-z]+://[^/]+).*$", "\\1", external)))
cat(sprintf("site-links: %d pages, %d broken links; external hosts: %s\n", length(pages),
            length(broken), if (length(ext)) paste(ext, collapse = ", ") else "none"))
if (length(broken)) {
  cat(paste0("  ", unique(broken), collapse = "\n"), "\n")
  quit(status = 1)
}
