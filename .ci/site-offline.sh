#!/bin/sh
# Looks at the documentation site built by `make docs` in headless Chromium
# with every other host unreachable (issue 51): the site is served from
# 127.0.0.1 by python3's http.server (over file:// the browser refuses the
# search index), Chromium resolves no other name and has a dead proxy, so
# the CDN links of pkgdown's template fail as they do offline.  A page of
# checks (written into the site while it runs, removed after) opens an
# article in a frame and reports: the libraries pkgdown.js needs, the table
# of contents, the navbar's headroom, copy buttons, the Font Awesome fonts,
# formulas (KaTeX), a search typed into the search box and its matches
# marked on the page.
#   .ci/site-offline.sh [docs] [articles/statphysgpu.html] [query]
# Exit status 1 when a check fails.
set -u
site=${1:-docs}
page=${2:-articles/escape-times.html}
query=${3:-escape}
browser=${CHROMIUM:-chromium-headless-shell}
command -v "$browser" >/dev/null 2>&1 || { echo "site-offline: no $browser (Debian: chromium-headless-shell)"; exit 1; }
[ -f "$site/$page" ] || { echo "site-offline: no $site/$page (make docs first)"; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check="$site/offline-check.html"
cat > "$check" <<EOF
<!doctype html><html><head><meta charset="utf-8"></head><body>
<pre id="out"></pre>
<iframe id="f" src="$page?q=$query" width="1280" height="900"></iframe>
<script>
var out = [], bad = 0;
function log(ok, s) { if (!ok) bad++; out.push((ok ? "ok   " : "FAIL ") + s); }
function done() {
  out.push(bad ? "site-offline: " + bad + " checks failed" : "site-offline: all checks passed");
  document.getElementById("out").textContent = "\n" + out.join("\n") + "\n";
}
var f = document.getElementById("f");
f.onload = function () {
  var w = f.contentWindow, d = f.contentDocument, jq = w.jQuery;
  ["Toc", "Headroom", "ClipboardJS", "Fuse", "Mark", "katex"].forEach(function (n) {
    log(typeof w[n] !== "undefined", "global " + n);
  });
  log(!!jq && !!jq.fn.headroom, "jQuery plugin headroom");
  log(!!jq && !!jq.fn.autocomplete, "jQuery plugin autocomplete");
  log(d.querySelectorAll("#toc a").length > 0 && d.querySelectorAll("#toc > ul").length === 1,
      "table of contents: " + d.querySelectorAll("#toc a").length + " entries in " +
      d.querySelectorAll("#toc > ul").length + " list");
  log(/headroom/.test(d.querySelector("nav.navbar").className), "navbar headroom: " + d.querySelector("nav.navbar").className);
  log(d.querySelectorAll(".katex").length > 0, "formulas rendered by KaTeX: " + d.querySelectorAll(".katex").length);
  // a search result's link: the page with ?q=, its matches marked by mark.js
  log(d.querySelectorAll("main mark").length > 0, "'$query' marked on the page: " + d.querySelectorAll("main mark").length);
  var inp = d.getElementById("search-input");
  jq(inp).trigger("focus");
  setTimeout(function () {
    jq(inp).val("$query").trigger("input");
    setTimeout(function () {
      var s = d.querySelectorAll(".aa-suggestion");
      log(s.length > 0 && !/No results/.test(s[0].textContent),
          "search '$query': " + s.length + " results" + (s.length ? ", first: " + s[0].textContent.replace(/\s+/g, " ") : ""));
      // added by a later ready handler of pkgdown.js where clipboard.js can copy
      var copy = w.ClipboardJS && w.ClipboardJS.isSupported();
      log((d.querySelectorAll(".btn-copy-ex").length > 0) === !!copy,
          "copy buttons: " + d.querySelectorAll(".btn-copy-ex").length + " (the browser can copy: " + copy + ")");
      var fa = [];
      d.fonts.forEach(function (x) { if (/Font Awesome/.test(x.family)) fa.push(x.family + " " + x.weight + " " + x.status); });
      log(fa.some(function (x) { return / loaded$/.test(x); }), "Font Awesome fonts: " + fa.join("; "));
      var icons = d.querySelectorAll("i.fa, i.fas, i.fab, i.far, span.fa, span.fab, span.fas");
      if (icons.length) {
        var fam = w.getComputedStyle(icons[0], "::before").fontFamily;
        log(/Font Awesome 5/.test(fam), "icons: " + icons.length + ", the first drawn in " + fam);
      }
      done();
    }, 1500);
  }, 1500);
};
</script></body></html>
EOF
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
sleep 1
out=$("$browser" --headless --disable-gpu --no-sandbox \
  --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" \
  --virtual-time-budget=15000 --dump-dom "http://127.0.0.1:$port/offline-check.html" 2>/dev/null)
kill "$server"
rm -f "$check"
res=$(printf '%s\n' "$out" | sed -n '/<pre id="out">/,/<\/pre>/p' | sed -e 's/<[^>]*>//g' -e 's/&gt;/>/g' -e 's/&lt;/</g' -e 's/&amp;/\&/g' | sed '/^$/d')
printf '%s\n' "$res"
printf '%s\n' "$res" | grep -q "all checks passed"
