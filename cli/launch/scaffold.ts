// The file `svc launch init` writes: every key of the launch schema, commented, and itself a valid
// configuration (one local ship; the remote example is commented out). The local ship is the one `svc launch`
// without a file runs, continued: the same name (this host's, written out: the entry's key would rename the
// ship and leave the old name on the bridge's roster as an offline ghost), fleet directory and port.
export const launchScaffold = (
  shipName: string,
): string => `# svc launch configuration (svc launch --config-path svc.yaml).
# Relative paths are relative to this file. Token values may be written secrets:<VAR> (read from the
# sibling svc.secrets file, KEY=value lines, mode 0600) or with \${VAR} (read from the environment).

bridge:
  dataDirectory: .svc/bridge      # PGlite store, armory and lock (0700)
  port: 4800
  name: bridge
  # publicUrl: https://svc.example.com   # how ships and browsers reach the bridge; set it for remote ships
  # databaseUrl: \${SVC_DATABASE_URL}      # PostgreSQL instead of the embedded store
  insecureNoAuth: false                 # true: every request is an admin (local experiments only)
  sweepIntervalMs: 300000               # ephemeral workspace sweeps; 0 turns them off

ships:
  local:
    source: local                 # started inside the launch process
    fleetDirectory: .svc/fleet    # workspaces live at <fleetDirectory>/<repo>/<name>
    port: 4700
    name: ${JSON.stringify(shipName)}   # as \`svc launch\` without a file names it (this host); default: the key
    # Leave both tokens out and the launch provisions a pair (the shipToken rotates at every launch);
    # give both to pin them:
    # shipToken: secrets:LOCAL_SHIP_TOKEN
    # bridgeToken: secrets:LOCAL_BRIDGE_TOKEN
    # What every workspace session receives (sessions start from a clean environment; SVC_* is refused):
    # sessionEnv:
    #   ANTHROPIC_API_KEY: secrets:ANTHROPIC_API_KEY
    #   HTTPS_PROXY: \${HTTPS_PROXY}

  # gpu-box:
  #   source: remote              # a ship already running elsewhere, registered by URL
  #   url: https://gpu-box.internal:4700
  #   shipToken: secrets:GPU_SHIP_TOKEN
  #   bridgeToken: secrets:GPU_BRIDGE_TOKEN
`;
