// The site without a network (issue 51).  pkgdown 2.0.7's template loads
// bootstrap-toc, headroom, clipboard.js, Fuse.js, autocomplete.js and
// mark.js from CDNs; pkgdown includes this file on every page after them,
// and pkgdown.js uses them only once the page is parsed.  Where a CDN copy
// did not load (no network), the site's own copy of the same file
// (offline/js/, byte for byte the CDN's file: see offline/README.md) is
// written into the page here, so that it runs before pkgdown.js's code:
// search, the table of contents, the navbar and the copy buttons work
// offline.  Served over http(s) or a local server: over file:// the
// browser refuses pkgdown.js's fetch() of search.json, so search needs
// e.g. `python3 -m http.server -d docs`.
(function () {
  var self = document.currentScript;
  var root = self ? self.getAttribute('src').replace(/extra\.js$/, '') : '';
  var $ = window.jQuery;
  var libs = [
    ['bootstrap-toc.min.js', function () { return typeof window.Toc !== 'undefined'; }],
    ['headroom.min.js', function () { return typeof window.Headroom !== 'undefined'; }],
    ['jQuery.headroom.min.js', function () { return !$ || !!$.fn.headroom; }],
    ['clipboard.min.js', function () { return typeof window.ClipboardJS !== 'undefined'; }],
    ['fuse.js', function () { return typeof window.Fuse !== 'undefined'; }],
    ['autocomplete.jquery.min.js', function () { return !$ || !!$.fn.autocomplete; }],
    ['mark.min.js', function () { return typeof window.Mark !== 'undefined'; }]
  ];
  var missing = [];
  for (var i = 0; i < libs.length; i++) {
    // jQuery.headroom needs Headroom only when it is called, so the test
    // of each file may run before the files above it are loaded
    if (!libs[i][1]()) missing.push(libs[i][0]);
  }
  // bootstrap-toc also fills every nav[data-toggle="toc"] by itself when the
  // page is ready; loaded here, after pkgdown.js, it would do so after
  // pkgdown.js's own Toc.init() and add a second list (of every heading of
  // the page): a local copy fills each nav once, the first time
  function tocOnce() {
    var init = window.Toc.init;
    window.Toc.init = function (opts) {
      var nav = window.jQuery(opts && opts.$nav ? opts.$nav : opts);
      if (nav.data('pkgdown-toc-done')) return;
      nav.data('pkgdown-toc-done', true);
      return init.apply(this, arguments);
    };
  }
  for (var j = 0; j < missing.length; j++) {
    // parser-blocking, in order, before DOMContentLoaded (pkgdown.js's code)
    document.write('<script src="' + root + 'offline/js/' + missing[j] + '"><\/script>');
    if (missing[j] === 'bootstrap-toc.min.js') {
      document.write('<script>(' + tocOnce.toString() + ')();<\/script>');
    }
  }
})();
