# Developer tasks for statphysgpu (this file is .Rbuildignore'd).
#
#   make run    install what is missing, build the source tarball (with its
#               vignettes) and install it (into LIB= when given), run the
#               main demo
#   make test   build the tarball, R CMD check it (tests, examples, vignettes),
#               re-run the tests on a build without OpenMP and without the GPU
#               backend, run one session as an interactive console (.ci/
#               interactive.R) and one at a real terminal (tmux) where Ctrl-C
#               interrupts every engine (.ci/terminal.R), and print the
#               totals as the last line
#   make test-slurm   start a one-node Slurm cluster on this machine (root;
#               installs slurm-wlm, munge and r-cran-future.batchtools when
#               missing), run the tests of tests/slurm against it (chunks as
#               cluster jobs), stop it, and print the totals as the last line
#   make deps   only install (or list) what is missing
#   make docs   install what is missing (roxygen2, pkgdown, KaTeX: Debian
#               r-cran-roxygen2, r-cran-pkgdown, libjs-katex), regenerate
#               NAMESPACE and man/ with roxygen2, build the documentation
#               site with pkgdown into docs/ (git-ignored) with a local copy
#               of KaTeX so that formulas render offline, and check the
#               site's links (.ci/site-links.R) and, with chromium-headless-
#               shell, its search, contents and icons offline (.ci/site-offline.sh)

R       ?= R
RSCRIPT ?= Rscript
PKG     := statphysgpu
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
DEMO    := switching

# Debian packages for building, checking and running (R packages of DESCRIPTION).
DEB_PKGS := r-base-dev r-cran-cli r-cran-rlang r-cran-digest r-cran-filelock r-cran-testthat r-cran-knitr r-cran-rmarkdown \
            r-cran-ggplot2 r-cran-survival r-cran-future.apply r-cran-withr r-cran-coda \
            r-cran-generics r-cran-parallelly r-cran-matrix r-cran-future r-cran-posterior \
            pandoc qpdf tmux
R_PKGS   := cli rlang digest filelock testthat knitr rmarkdown ggplot2 survival future.apply withr coda

.PHONY: deps run test test-slurm check docs clean

deps:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	  for p in $(DEB_PKGS); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	      echo "make: installing Debian packages:$$missing"; \
	      apt-get update -qq && \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	    else \
	      echo "make: missing Debian packages:$$missing"; \
	      echo "make: install them as root, e.g.  sudo apt-get install$$missing"; \
	      exit 1; \
	    fi; \
	  fi; \
	fi; \
	command -v $(RSCRIPT) >/dev/null 2>&1 || { \
	  echo "make: R is not installed; install R (>= 4.0) and the R packages: $(R_PKGS), plus pandoc and qpdf"; exit 1; }; \
	$(RSCRIPT) --vanilla -e 'm <- setdiff(strsplit("$(R_PKGS)", " ")[[1]], rownames(installed.packages())); if (length(m)) { cat("make: missing R packages:", m, "\nmake: install them with install.packages() or your system package manager\n"); quit(status = 1) }'

# Build the source tarball (R CMD build: it builds the vignettes) in a
# temporary folder and install it, so that vignette(package = "statphysgpu")
# lists them (R CMD INSTALL of the source folder installs none), into LIB
# when given (make run LIB=/tmp/lib), else the first writable library (the
# user library if the site library is not writable); then run the main demo.
LIB ?=

run: deps
	@lib="$(LIB)"; \
	if [ -z "$$lib" ]; then \
	  lib=$$($(RSCRIPT) --vanilla -e 'cat(.libPaths()[1])'); \
	  if [ ! -w "$$lib" ]; then \
	    lib=$$($(RSCRIPT) --vanilla -e 'cat(path.expand(Sys.getenv("R_LIBS_USER")))'); \
	  fi; \
	fi; \
	mkdir -p "$$lib" && lib=$$(cd "$$lib" && pwd) || exit 1; \
	build=$$(mktemp -d "$${TMPDIR:-/tmp}/$(PKG)-build.XXXXXX") || exit 1; \
	trap 'rm -rf "$$build"' EXIT; \
	echo "make: building $(TARBALL) (with its vignettes) in $$build"; \
	(cd "$$build" && $(R) CMD build "$(CURDIR)") || exit 1; \
	echo "make: installing $(PKG) into $$lib"; \
	$(R) CMD INSTALL --library="$$lib" "$$build/$(TARBALL)" || exit 1; \
	R_LIBS="$$lib" $(RSCRIPT) -e 'demo("$(DEMO)", package = "$(PKG)", ask = FALSE, echo = TRUE)'

$(TARBALL): deps
	$(R) CMD build .

# Exit status: non-zero when R CMD check reports an ERROR or WARNING, or when
# any test fails in either build.  The last line is the testthat totals.
# Compiled models (sde_model(), the declared front-ends) go to one private
# cache folder made for this run and removed after it (STATPHYSGPU_CACHE_DIR):
# the vignettes of R CMD build, the check's examples, tests and vignettes,
# the second build's tests and the console sessions share it, instead of one
# cache in each R process's temporary folder (the check) or the user's own
# cache (the rest).  A model's object is keyed by every byte compiled, the
# compiler and its flags, R's and the package's versions: the two builds
# compile the same models with R's compiler and flags (OpenMP and CUDA are
# the package's, not the models'), so the second build's tests load the
# objects the first compiled (some 4 minutes of compiles on two cores).
# Tests of the cache itself make their own folders.
test: deps
	@rm -rf $(PKG).Rcheck .lib-noomp $(PKG)-noomp.log $(PKG)-interactive.log $(PKG)-terminal.log; \
	cache=$$(mktemp -d "$${TMPDIR:-/tmp}/$(PKG)-test-cache.XXXXXX") || { echo "0 passed, 1 failed"; exit 1; }; \
	trap 'rm -rf "$$cache"' EXIT; \
	STATPHYSGPU_CACHE_DIR="$$cache"; export STATPHYSGPU_CACHE_DIR; \
	$(R) CMD build . || { echo "0 passed, 1 failed"; exit 1; }; \
	NOT_CRAN=true _R_CHECK_CRAN_INCOMING_=false $(R) CMD check --no-manual $(TARBALL); \
	status=$$(sed -n 's/^Status: *//p' $(PKG).Rcheck/00check.log 2>/dev/null | tail -n 1); \
	echo "make: R CMD check status: $${status:-unknown}"; \
	mkdir -p .lib-noomp; \
	echo "make: re-running the tests on a build with STATPHYSGPU_OPENMP=no STATPHYSGPU_CUDA=no"; \
	STATPHYSGPU_OPENMP=no STATPHYSGPU_CUDA=no $(R) CMD INSTALL --library=.lib-noomp $(TARBALL) > $(PKG)-noomp.log 2>&1 \
	  || { cat $(PKG)-noomp.log; echo "make: the build without OpenMP and CUDA failed to install"; }; \
	(cd tests && NOT_CRAN=true STATPHYSGPU_TEST_BUILD=noopenmp,nocuda R_LIBS="$(CURDIR)/.lib-noomp" \
	  $(RSCRIPT) --vanilla -e 'library(testthat); library($(PKG)); test_dir("testthat", package = "$(PKG)", load_package = "installed", stop_on_failure = FALSE, reporter = ProgressReporter$$new(show_praise = FALSE))' \
	  >> ../$(PKG)-noomp.log 2>&1); \
	tail -n 25 $(PKG)-noomp.log; \
	echo "make: one session as a user's console: R --interactive fed from a pipe"; \
	(cd "$${TMPDIR:-/tmp}" && R_LIBS="$(CURDIR)/.lib-noomp" $(R) --vanilla --interactive --no-echo \
	  < "$(CURDIR)/.ci/interactive.R" > "$(CURDIR)/$(PKG)-interactive.log" 2>&1); \
	tail -n 5 $(PKG)-interactive.log; \
	echo "make: Ctrl-C at a real terminal (tmux), every engine, the progress bar on"; \
	$(RSCRIPT) --vanilla .ci/terminal.R $(PKG).Rcheck $(PKG)-terminal.log > /dev/null 2>&1; \
	grep -v "^  pane" $(PKG)-terminal.log | grep -v " ok$$" | tail -n 25; \
	rout=$(PKG).Rcheck/tests/testthat.Rout; \
	[ -f $$rout.fail ] && rout=$$rout.fail; \
	$(RSCRIPT) --vanilla .ci/totals.R "$${status:-unknown}" "$$rout" $(PKG)-noomp.log \
	  $(PKG)-interactive.log $(PKG)-terminal.log

# The cluster, the jobs and the package under test (installed from this
# checkout) live in a temporary folder; tests/slurm/cluster.sh says how.
# Exit status non-zero when a test fails; the last line is the totals.
SLURM_DEB_PKGS := slurm-wlm munge r-cran-future.batchtools
SLURM_R_PKGS   := batchtools future.batchtools future.apply testthat

test-slurm:
	@$(MAKE) --no-print-directory deps || { echo "0 passed, 1 failed"; exit 1; }
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(SLURM_DEB_PKGS)" R_PKGS="$(SLURM_R_PKGS)" \
	  || { echo "0 passed, 1 failed"; exit 1; }
	@sh tests/slurm/cluster.sh "$(R)" "$(RSCRIPT)"

# The site's formulas: KaTeX (Debian: libjs-katex), copied into docs/katex
# (under 1 MB) and started by pkgdown/katex.html (_pkgdown.yml, in_header).
KATEX ?= /usr/share/javascript/katex
DOCS_DEB_PKGS := r-cran-roxygen2 r-cran-pkgdown libjs-katex
DOCS_R_PKGS   := roxygen2 pkgdown

docs:
	@$(MAKE) --no-print-directory deps || exit 1
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(DOCS_DEB_PKGS)" R_PKGS="$(DOCS_R_PKGS)" || exit 1
	@[ -f "$(KATEX)/katex.min.js" ] || { echo "make docs: no KaTeX at $(KATEX) (Debian: apt-get install libjs-katex; or KATEX=<folder>)"; exit 1; }
	$(RSCRIPT) -e 'roxygen2::roxygenise(load_code = roxygen2::load_source)'
	./cleanup   # objects of a debug build in src/ would be installed for the site
	$(RSCRIPT) -e 'options(pkgdown.internet = FALSE); pkgdown::build_site(preview = FALSE, install = TRUE, new_process = FALSE)'
	@rm -rf docs/katex docs/mathjax; mkdir -p docs/katex/fonts && \
	cp -L "$(KATEX)/katex.min.js" "$(KATEX)/katex.min.css" docs/katex/ && \
	cp -L "$(KATEX)/contrib/auto-render.js" docs/katex/ && \
	cp -L "$(KATEX)"/fonts/*.woff2 docs/katex/fonts/ && \
	echo "make docs: KaTeX copied into docs/katex ($$(du -sh docs/katex | cut -f1))"
	$(RSCRIPT) --vanilla .ci/site-links.R docs
	@if command -v chromium-headless-shell >/dev/null 2>&1; then sh .ci/site-offline.sh docs; \
	else echo "make docs: no chromium-headless-shell, the site not looked at offline (.ci/site-offline.sh)"; fi

clean:
	rm -rf $(PKG).Rcheck $(PKG)_*.tar.gz .lib-noomp $(PKG)-noomp.log $(PKG)-interactive.log \
	  $(PKG)-terminal.log docs
	./cleanup
