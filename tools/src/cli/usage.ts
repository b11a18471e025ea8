/** Commands and options: printed after a command-line mistake. */
export const SYNOPSIS = `Usage: npm run cli -- <command> [options]
       node dist/tools/src/cli/main.js <command> [options]

Commands:
  devices register <file.json | ->           Register a device in the IS, the JS (OTAA only), the NS
                                             and the AS, in that order; on a failure, delete what
                                             was created. Prints the merged device.
  devices get <application-id> <device-id>   The device merged from all registries.
  devices list <application-id> [--limit N] [--page N]
                                             A page of the application's devices, each merged;
                                             the total count goes to stderr.
  devices delete <application-id> <device-id>
                                             Delete from the AS, NS, JS, then the IS.
  applications create <application-id> [--name NAME] [--user USER-ID]
                                             Create an application under the user (default: the
                                             key's own user); the user gets RIGHT_ALL on it.
  applications get <application-id>          The application with its name and contacts.
  applications list [--limit N] [--page N]   The applications the key may see.
  applications delete <application-id>       Delete (refused while it has devices).
  api-keys create <application-id> --rights RIGHT_A,RIGHT_B [--name NAME] [--expires-at RFC3339]
                                             An application API key; its secret is printed once.

Options:
  --url URL        The stack's HTTP API (env LORAWAN_API_URL; default http://localhost:1885)
  --api-key KEY    Bearer API key (env LORAWAN_API_KEY; default: the embedded stack's
                   <DATA_DIR or ./data>/admin-api-key)
  --limit N        devices list, applications list: entries per page (at most 1000, default 100)
  --page N         devices list, applications list: page number, from 1
  -h, --help       Help, with the description format
`;

/** `--help`: the synopsis, then the description format. */
export const USAGE = `${SYNOPSIS}
The description (a file, or - for stdin) is one EndDevice in TTS JSON (snake_case field names),
either bare or as {"end_device": {...}}. ids.device_id and ids.application_ids.application_id are
required. Each registry receives the fields it stores: the IS name, description, attributes,
version_ids, locations, *_server_address…; the JS root_keys (OTAA); the NS frequency_plan_id,
lorawan_version, lorawan_phy_version, supports_join, mac_settings, session.dev_addr and the network
session keys (ABP); the AS formatters, session.dev_addr and session.keys.app_s_key (ABP).

  {
    "ids": {
      "device_id": "dev1",
      "application_ids": { "application_id": "app1" },
      "dev_eui": "70B3D57ED005B59E",
      "join_eui": "70B3D57ED0000000"
    },
    "name": "Device 1",
    "supports_join": true,
    "lorawan_version": "MAC_V1_0_3",
    "lorawan_phy_version": "PHY_V1_0_3_REV_A",
    "frequency_plan_id": "EU_863_870_TTN",
    "root_keys": { "app_key": { "key": "00112233445566778899AABBCCDDEEFF" } }
  }

Exit codes: 0 done, 1 failed (the server's error on stderr), 2 usage error.
`;
