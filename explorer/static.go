package explorer

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// static holds the explorer's pages: plain HTML, CSS and ES modules, no
// build step.
//
//go:embed static
var static embed.FS

// staticHandler serves the embedded files; any path that is not a file
// gets index.html, whose script routes on the URL fragment.
func staticHandler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err)
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" || strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		if f, err := fs.Stat(sub, name); err != nil || f.IsDir() {
			if strings.Contains(name, ".") {
				http.NotFound(w, r)
				return
			}
			r = r.Clone(r.Context())
			r.URL.Path = "/"
		}
		// The files change only with the binary; let browsers revalidate.
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
