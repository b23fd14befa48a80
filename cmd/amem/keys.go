package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/local"
)

func (a *app) keysCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "keys",
		Short: "manage the API keys of amem serve and amem mcp over HTTP",
		Long: `API keys authenticate requests to 'amem serve' (REST and MCP over HTTP).
Each key reaches the namespaces it was created for, or all of them (--admin).
Only a hash of each key is stored: a key is shown once, when it is created.`,
	}
	c.AddCommand(a.keysCreateCmd(), a.keysListCmd(), a.keysRevokeCmd())
	return c
}

// withKeys opens the database's key store only: no embedder, no model.
// Only creating a key creates the database (create).
func (a *app) withKeys(create bool, fn func(local.Store) error) error {
	if err := a.checkDB(!create); err != nil {
		return err
	}
	st, err := local.OpenStore(a.ctx, a.Cfg.Path)
	if err != nil {
		return err
	}
	err = fn(st)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

func (a *app) keysCreateCmd() *cobra.Command {
	var admin bool
	var name string
	c := &cobra.Command{
		Use:   "create --namespace NS[,NS...] | --admin",
		Short: "create a key and print it (only the key, on stdout)",
		Example: `  amem keys create --namespace alice
  amem keys create --namespace alice,team --name laptop
  amem keys create --admin`,
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			var nss []string
			if a.namespace != "" {
				nss = strings.Split(a.namespace, ",")
			}
			if !admin && len(nss) == 0 {
				return usagef("give --namespace NS (several separated by commas) or --admin")
			}
			k, token, err := auth.NewKey(name, admin, nss, time.Now())
			if err != nil {
				return err
			}
			if err := a.withKeys(true, func(st local.Store) error { return st.CreateKey(a.ctx, k) }); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(struct {
					Token string `json:"key"`
					auth.Key
				}{token, k})
			}
			fmt.Fprintln(a.stdout, token)
			return nil
		},
	}
	c.Flags().BoolVar(&admin, "admin", false, "the key reaches every namespace")
	c.Flags().StringVar(&name, "name", "", "a label for listings (who or what uses the key)")
	return c
}

func (a *app) keysListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list keys (IDs and namespaces; never the keys themselves)",
		Args:  exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withKeys(false, func(st local.Store) error {
				keys, err := st.Keys(a.ctx)
				if err != nil {
					return err
				}
				if a.jsonOut {
					if keys == nil {
						keys = []auth.Key{}
					}
					return a.printJSON(keys)
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tNAMESPACES\tCREATED\tREVOKED")
				for _, k := range keys {
					nss := strings.Join(k.Namespaces, ",")
					if k.Admin {
						nss = "* (admin)"
					}
					revoked := "-"
					if !k.RevokedAt.IsZero() {
						revoked = k.RevokedAt.Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID, printable(k.Name), nss, k.CreatedAt.Format(time.RFC3339), revoked)
				}
				return tw.Flush()
			})
		},
	}
}

func (a *app) keysRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke KEY_ID",
		Short: "revoke a key at once (requests with it get 401)",
		Args:  exactArgs(1, "a key ID (see 'amem keys list')"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withKeys(false, func(st local.Store) error {
				return st.RevokeKey(a.ctx, args[0], time.Now())
			})
		},
	}
}

// printable writes a key's name with control characters escaped: a name
// stored before names were checked could otherwise send escape
// sequences to the terminal.
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}
