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
  devices import <file.jsonl | file.csv> --application ID [--format jsonl|csv] [--report PATH]
                 [--dry-run] [--batch-size N] [--concurrency N]
                                             Register every device of the file (JSON lines of
                                             EndDevices, or CSV) in batches, in the spec's order;
                                             resumable (a rerun skips complete devices and
                                             completes half-registered ones); every line not
                                             registered goes to the report with the server's error.
  devices export --application ID [--with-keys] [--output PATH] [--batch-size N]
                                             Every device merged from the four registries, one
                                             JSON line each (what devices import reads).
  applications create <application-id> [--name NAME] [--user USER-ID]
                                             Create an application under the user (default: the
                                             key's own user); the user gets RIGHT_ALL on it.
  applications get <application-id>          The application with its name and contacts.
  applications list [--limit N] [--page N]   The applications the key may see.
  applications delete <application-id>       Delete (refused while it has devices).
  api-keys create <application-id> --rights RIGHT_A,RIGHT_B [--name NAME] [--expires-at RFC3339]
                                             An application API key; its secret is printed once.
  simulate join --gateway-eui EUI --join-eui EUI --dev-eui EUI --app-key KEY [--nwk-key KEY]
                [--mac-version V] [--dev-nonce HEX4] [--udp HOST:PORT] [--frequency MHZ]
                [--data-rate SFxBWy] [--timeout S]
                                             One OTAA join through the Gateway Server's UDP
                                             listener, as a Semtech packet forwarder and a device
                                             (lora-packet): prints the decrypted join-accept, its
                                             RX window and the session keys the device derived.

Options:
  --url URL        The stack's HTTP API (env LORAWAN_API_URL; default http://localhost:1885)
  --api-key KEY    Bearer API key (env LORAWAN_API_KEY; default: the embedded stack's
                   <DATA_DIR or ./data>/admin-api-key)
  --limit N        devices list, applications list: entries per page (at most 1000, default 100)
  --page N         devices list, applications list: page number, from 1
  devices import and export:
  --application ID The application (an import puts every device there, whatever its line says)
  --format F       jsonl or csv (default: csv for a .csv file, else jsonl)
  --report PATH    One JSON line per line not registered (default <file>.report.jsonl)
  --dry-run        Parse and validate every line with the contract; no server needed, nothing sent
  --batch-size N   Devices per batch request (import, 1..1000, default 250) or per IS List page
                   (export, default 100)
  --concurrency N  Batches of an import in flight at once (default 4)
  --with-keys      export: root and session keys too (needs RIGHT_APPLICATION_DEVICES_READ_KEYS;
                   without it the export stops with the server's error)
  --output PATH    export: write there instead of stdout
  simulate join (no --url or --api-key: it speaks UDP, not HTTP):
  --udp HOST:PORT  The Gateway Server's UDP listener (default 127.0.0.1:1700)
  --gateway-eui    The simulated gateway's EUI (16 hex digits, required)
  --join-eui, --dev-eui, --app-key
                   The device (required); --nwk-key too for MAC_V1_1, and only then
  --mac-version V  MAC_V1_0, MAC_V1_0_1, MAC_V1_0_2, MAC_V1_0_3 (default), MAC_V1_0_4, MAC_V1_1
  --dev-nonce HEX4 Default: random before 1.0.4; 0000 for 1.0.4 and 1.1, where the Join Server
                   wants each DevNonce above the last one it accepted
  --frequency MHZ  Uplink frequency (default 868.1)
  --data-rate DR   Uplink LoRa data rate (default SF7BW125)
  --timeout S      Seconds to wait for the join-accept (default 8)
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

simulate join prints one JSON object: dev_addr, net_id, join_nonce, dev_nonce, dl_settings,
rx_delay, cf_list (when sent), rx_window (RX1: txpk tmst 5 s after the join-request's, RX2: 6 s),
the txpk's freq, datr, powe and tmst, and session_keys (nwk_s_key and app_s_key for a 1.0 session;
f_nwk_s_int_key, s_nwk_s_int_key, nwk_s_enc_key and app_s_key for 1.1). The join-accept is
acknowledged with TX_ACK, then decrypted and its MIC checked; a bad one fails the command.

devices import CSV columns (header row required; an unknown column refuses the file): device_id
(required), dev_eui, join_eui, name, description, frequency_plan_id, lorawan_version,
lorawan_phy_version, supports_join (true/false; default true with app_key, false with dev_addr),
app_key, nwk_key (OTAA), dev_addr, app_s_key, f_nwk_s_int_key (or nwk_s_key), s_nwk_s_int_key,
nwk_s_enc_key (ABP), brand_id, model_id, hardware_version, firmware_version, band_id (version_ids),
attributes.<key> (one attribute each). devices import prints a summary (registered, completed,
skipped, failed) and exits 1 when a line failed.

Exit codes: 0 done, 1 failed (the server's error on stderr; for simulate join: no ack, no
join-accept within the timeout, or a join-accept the device refuses), 2 usage error.
`;
