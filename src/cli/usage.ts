/** Where a usage mistake's message sends the user. */
export const HELP_HINT = "run 'conduit-mcp --help' for usage";

/** `--help`: every command, option and exit code. */
export const USAGE = `Usage: conduit-mcp <command> [options] -- <server command> [args...]
       conduit-mcp <command> [options] <https://host/mcp>   an HTTP server (Streamable HTTP or HTTP+SSE)
       conduit-mcp <command> [options] --config <file> --server <name>
       conduit-mcp servers|tools|call|search --config <file>   every server of the file, started in parallel

Commands:
  inspect                 era, protocol version, server info, capabilities, instructions, and every list
  tools | resources | prompts   one list (tools with their parameters)
  tools --format openai|openai-responses|anthropic|gemini|ai-sdk   the tool definitions as that
                          model provider takes them (JSON; a tool it cannot take is named on stderr)
  call <tool>             call a tool (--arg key=value ..., --args '{"key":1}', --args @file.json, --args -);
                          arguments are checked against its input schema first (--no-validate: not)
  read <uri>              read a resource
  prompt <name>           get a prompt (--arg key=value ...)
  servers --config <file> each server's state, era and tool count (exit 3 if one is not ready)
  search <query> --config <file>   the tools that best match the query across the file's servers
                          (--limit <n>, default 10; lazy servers not started: from an earlier run)
  complete <ref> <argument> <value>   completions; <ref> is prompt:<name> or resource:<uri template> (--arg k=v: context)
  watch [uri...]          print list-changed notifications, and resource-updated ones for each uri, as they arrive
  shell                   one server, many commands (tab completes tool names; history);
                          the server's forms (elicitation) are asked at the terminal
  logout <url>            remove the OAuth tokens stored for an HTTP server (or: logout <name> --config <file>)
  serve                   the server(s) as ONE MCP server on stdio (--http <host:port>: Streamable HTTP);
                          --config <file> for every server of the file; --allow/--deny <glob> filter tools;
                          HTTP: --token-env <VAR> (required beyond loopback), --allow-host <name>,
                          --max-body-bytes <n>, --max-in-flight <n>

Server:
  --config <file> --server <name>   take the server from an mcpServers JSON file
  --header 'Name: value'  HTTP servers: send this header (repeatable); values are kept secret
  --allow-insecure        HTTP servers: allow plain http: to a host that is not loopback
  --env KEY=VALUE         extra environment for the server (repeatable)
  --pass-env NAME         let this variable of your environment through to the server (repeatable)
  --cwd <dir>             the server's working directory
  --stderr inherit|discard|<file>   where the server's stderr goes (default inherit)
  --stderr-tail <bytes>   how much of its stderr to show when it fails (default 8192, 0: none)
  --protocol auto|modern|legacy     era selection (default auto)
  --root <dir>            offer this directory as a root (repeatable)
  --log-level <level>     ask for server log messages at this level, shown on stderr

OAuth (HTTP servers that answer 401; tokens kept per server in <config dir>/conduit-mcp/tokens,
the config dir being $XDG_CONFIG_HOME, else ~/.config, or %APPDATA% on Windows; logout removes them):
  --client-id <id>        a client registered with the authorization server beforehand
  --client-secret-env <NAME>   that client's secret, read from this environment variable
  --grant authorization_code|client_credentials|jwt_bearer   default authorization_code: the URL
                          to open is printed on stderr and the redirect caught on 127.0.0.1;
                          client_credentials: machine to machine, with --client-id and
                          --client-secret-env; jwt_bearer: workload identity, with --assertion-file
  --assertion-file <path> the workload's JWT (e.g. a Kubernetes projected token), read again
                          whenever a token is due, so a rotated file is picked up
  --scope <scope>         ask for this scope (repeatable; default: the server's)
  --dpop                  DPoP-bound tokens (RFC 9449) even where the authorization server does
                          not advertise DPoP (where it does, they are used anyway)
  --open                  also open the authorization URL in the system's browser
  --no-login              never ask for consent: fail at once (exit 1) where it would be needed,
                          e.g. in scripts and CI, where nobody can open the URL

Time and limits:
  --timeout <ms>          per request, restarted by each progress notification (default 60000)
  --max-time <ms>         hard cap per request, progress or not (default 10 x --timeout)
  --connect-timeout <ms>  start-up: spawn, era detection and handshake (default 60000)
  --probe-timeout <ms>    wait for the era probe's answer (default 3000)
  --max-message-bytes <n> longest line (HTTP: body or SSE event) the server may send (default 8388608)
  --max-junk-lines <n>    non-JSON-RPC lines in a row tolerated (default 10)

Output:
  --json                  JSON only on stdout, errors too: {"error":{"code","message",...}}
  --structured            call: print structuredContent (as JSON) as well as the content
  --output <dir>          call, read: save images, audio and blobs as files in <dir>
  --raw                   print server text as is (default: control characters shown as \\x1b etc.)
  --verbose               spawn, era detection steps, each HTTP status, timings and close reasons
                          on stderr (Secrets redacted)
  --trace <file|->        every JSON-RPC message, both ways, Secrets redacted (- for stderr)
  -h, --help              this text
  --version               conduit-mcp's version

Exit codes:
  0 success                        1 the server answered an error (HTTP: an error status), or the tool returned isError
  2 usage or configuration error   3 the server could not be started or reached, exited or closed the connection
  4 timed out (--timeout, --max-time, --connect-timeout)
  5 the server lacks what was asked (capability, protocol era or version)
  6 the server (serve: the host) broke the protocol  129/130/143 stopped by SIGHUP/SIGINT/SIGTERM
  141 stdout was closed early (e.g. | head)`;
