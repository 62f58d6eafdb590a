/**
 * The `--help` text. A module of its own, loaded by `tandem --help` only: the runtime's start
 * (spawn → first `ping`) does not parse it.
 *
 * @example
 * const { helpText } = await import("./help-text.js");
 * process.stdout.write(helpText);
 */
export const helpText = `tandem — an open agent runtime speaking the Copilot SDK protocol (JSON-RPC 2.0)

Usage: tandem [--stdio | --port <n>] [options]
       tandem store import --from <home or session-state folder> --store <postgres://…>

Transport
  --stdio                     serve JSON-RPC on stdin/stdout
  --port <n>                  serve on TCP (default: a free port); prints "listening on port <n>"
  --host <addr>               TCP address to bind (default 127.0.0.1); a non-loopback address
                              needs a connection token (and is warned about: no encryption)

TCP access
  COPILOT_CONNECTION_TOKEN    when set, a TCP client's first request must be connect {token}
                              with this value (what the official SDK 1.0 and @tandem/sdk send
                              when they start the runtime); anything else is refused and closed
  --connection-token-env <VAR>  read the token from VAR instead
  without a token             only clients on loopback whose socket belongs to this OS user are
                              served (checked in /proc/net/tcp); where there is no /proc (macOS,
                              Windows), TCP needs a token
  --headless                  marks a runtime started by an SDK; in TCP mode it then exits when
                              the process that started it dies (checked every second)
  --exit-with-parent, --no-exit-with-parent
                              force that on or off (a runtime started by hand, without
                              --headless, keeps running after its shell exits)

Options
  --log-level <level>         none | error | warning | info | debug | all (default info)
  --log-file <path>           write logs to a file instead of stderr (also $TANDEM_LOG_FILE); with
                              --headless, stderr gets only warnings and errors
  --log-format <format>       text | json (one JSON object per line; default text)
  --auth-token-env <VAR>      read the GitHub token for the Copilot API from VAR
  --no-auto-login             accepted; Tandem never uses a stored interactive login
  --sdk-protocol-version <n>  2 or 3 (default 3)
  --home <dir>                state folder (default $COPILOT_HOME, $TANDEM_HOME or ~/.tandem)
  --store <url>               keep sessions in PostgreSQL (postgres://…; default $TANDEM_STORE_URL, else files);
                              runtimes on one database form a cluster: any node serves any session
  --node-id <id>              this node's name in the cluster (default $TANDEM_NODE_ID, else hostname-pid)
  --health-port <n>           with --store: GET /healthz on this port (200 ok, 503 store unreachable)
  --advertise-url <host:port> with --store: where clients reach this node (default $TANDEM_ADVERTISE_URL);
                              clients of sessions it runs that connected elsewhere are told to come here
  --peer-listen <host:port>|off
                              with --store: where the other nodes open direct links to this node
                              (default $TANDEM_CLUSTER_PEER_LISTEN, else the host of --advertise-url or
                              127.0.0.1, port 0 = a free one); authenticated through the database, not
                              encrypted: bind a private interface; off = node messages go through the database
  --session-idle-timeout <s>  accepted (whole seconds); idle sessions are not released yet
  --allow-all, --yolo         trust every working folder: its extensions (.github/extensions) start
                              without asking the application (default: a permission request, or
                              the folder listed in "trustedFolders" of <home>/config.json)
  --report-intent on|off      offer the model report_intent (its calls become assistant.intent
                              events); default: on for SDK 0.2.0 clients, off for 1.0.x ones;
                              a session's reportIntent option overrides it
  --max-model-calls-per-turn <n>
                              model calls one user message may make before the turn stops with
                              session.error "model_call_limit" (default $TANDEM_MAX_MODEL_CALLS_PER_TURN, else 1000)
  --sandbox on|off|<json>     run every session's bash commands and stdio MCP servers in a bubblewrap
                              sandbox (Linux) unless the session's own "sandbox" says otherwise;
                              JSON is a SandboxConfig (default $TANDEM_SANDBOX, else off);
                              $TANDEM_SANDBOX_POOL (0-8, default 1): started sandboxed shells each
                              session keeps ready for one-off commands
  --no-auto-update, --remote  accepted for compatibility (no effect)
  --help, --version

Models: set COPILOT_API_URL (+ a GitHub token) for the Copilot API, OPENAI_BASE_URL / OPENAI_API_KEY
for any OpenAI-compatible server, or pass a BYOK provider in session.create.
Limits: TANDEM_MAX_MESSAGE_BYTES caps one incoming JSON-RPC message (default 104857600).
`;
