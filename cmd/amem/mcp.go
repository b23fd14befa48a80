package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/memory"
)

func (a *app) mcpCmd() *cobra.Command {
	var logFormat string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "serve the memory to an agent over MCP on stdin/stdout",
		Long: `mcp runs a Model Context Protocol server on stdin and stdout, for an agent
(Claude Desktop, Claude Code, any MCP client) that starts it as a subprocess.
Its tools add, search, get, update and delete memories and list a memory's
links and history; --namespace is the namespace a tool call uses when it
names none. A note is stored at once and enriched in the background.
stdout carries the protocol only: logs go to stderr (more with --verbose).
It ends when stdin closes or on an interrupt.`,
		Example: `  claude mcp add amem -- amem mcp --namespace me
  amem mcp --db ~/notes/amem.db --embedder lexical`,
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.serveMCP(logFormat)
		},
	}
	c.Flags().StringVar(&logFormat, "log-format", "text", "log format on stderr: text or json")
	return c
}

// serveMCP serves one MCP session on the app's streams.
func (a *app) serveMCP(logFormat string) (err error) {
	logger, err := newLogger(a.stderr, logFormat, a.Verbose)
	if err != nil {
		return err
	}
	endTracing, err := setupTracing(a.ctx, os.Getenv, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, endTracing()) }()
	svc, err := a.openService(logger, memory.WorkerOptions{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, svc.Close()) }()
	srv := mcpserver.New(svc.mem, mcpserver.Options{DefaultNamespace: a.ns(), Version: version, Logger: logger})
	transport := &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}}
	ss, err := srv.Connect(a.ctx, transport, nil)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	// A signal ends the session as the end of stdin does: the client is
	// gone or the user asked to stop, so neither is a failure.
	stop := context.AfterFunc(a.ctx, func() { ss.Close() })
	defer stop()
	if err := ss.Wait(); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// nopWriteCloser keeps stdout open when the session closes: it belongs to
// the process, not to the session.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
