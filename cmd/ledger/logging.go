package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// logOptions are the root's persistent logging flags.
type logOptions struct {
	level, format string
}

func (o *logOptions) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&o.level, "log-level", "info", "log level: debug, info, warn or error")
	f.StringVar(&o.format, "log-format", "auto", "log format: text, json, or auto (text on a terminal, JSON otherwise)")
}

// logger validates the flags and returns a logger writing to w: text for
// people, JSON for log collectors.
func (o *logOptions) logger(w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(o.level)); err != nil {
		return nil, usageError{msg: fmt.Sprintf("--log-level %q: want debug, info, warn or error", o.level)}
	}
	h := &slog.HandlerOptions{Level: l}
	var asText bool
	switch o.format {
	case "text":
		asText = true
	case "json":
	case "auto":
		f, ok := w.(*os.File)
		asText = ok && term.IsTerminal(int(f.Fd()))
	default:
		return nil, usageError{msg: fmt.Sprintf("--log-format %q: want text, json or auto", o.format)}
	}
	if asText {
		return slog.New(slog.NewTextHandler(w, h)), nil
	}
	return slog.New(slog.NewJSONHandler(w, h)), nil
}

type loggerKey struct{}

// withLogger stores the command line's logger in cmd's context.
func withLogger(cmd *cobra.Command, l *slog.Logger) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	cmd.SetContext(context.WithValue(ctx, loggerKey{}, l))
}

// loggerOf returns the logger of the command line (--log-level,
// --log-format), writing to the command's stderr.
func loggerOf(cmd *cobra.Command) *slog.Logger {
	if ctx := cmd.Context(); ctx != nil {
		if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
			return l
		}
	}
	return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
}
