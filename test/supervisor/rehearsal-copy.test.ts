import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Level } from "level";
import { parse } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { VisorLayout } from "../../supervisor/src/home/visor-layout.js";
import { copyLiveHome } from "../../supervisor/src/rehearsal/home-copy.js";
import { isolateCopyConfig } from "../../supervisor/src/rehearsal/isolated-copy-config.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "rehearsal-copy-"));
  dirs.push(d);
  return d;
};

/** A TOML file of the home, read by dotted path (`rpc.laddr`). */
function toml(home: string, file: string): (path: string) => unknown {
  const doc = parse(readFileSync(join(home, "config", file), "utf8"));
  return (path) =>
    path.split(".").reduce<unknown>((t, k) => (t as Record<string, unknown> | undefined)?.[k], doc);
}

const CONFIG_TOML = `proxy_app = "tcp://127.0.0.1:26658"
[rpc]
laddr = "tcp://0.0.0.0:26657"
pprof_laddr = "localhost:6060"
[p2p]
laddr = "tcp://0.0.0.0:26656"
external_address = "203.0.113.7:26656"
persistent_peers = "0123456789abcdef0123456789abcdef01234567@203.0.113.8:26656"
seeds = "fedcba9876543210fedcba9876543210fedcba98@203.0.113.9:26656"
pex = true
[statesync]
enable = true
[instrumentation]
prometheus = true
prometheus_listen_addr = ":26660"
`;
const APP_TOML = `halt-height = 900
[api]
enable = false
address = "tcp://0.0.0.0:1317"
[grpc]
address = "0.0.0.0:9090"
[json-rpc]
address = "127.0.0.1:8545"
ws-address = "127.0.0.1:8546"
[state-sync]
snapshot-interval = 1000
`;

describe("a rehearsal's copy of a live home", () => {
  it("listens only on new loopback ports, and has no peers, seeds, peer exchange, state sync, snapshots or halt height", async () => {
    const home = tmp();
    mkdirSync(join(home, "config"));
    writeFileSync(join(home, "config", "config.toml"), CONFIG_TOML);
    writeFileSync(join(home, "config", "app.toml"), APP_TOML);
    await isolateCopyConfig(home);
    const node = toml(home, "config.toml");
    const app = toml(home, "app.toml");
    const listeners = [
      ...[
        "proxy_app",
        "rpc.laddr",
        "rpc.pprof_laddr",
        "p2p.laddr",
        "instrumentation.prometheus_listen_addr",
      ].map(node),
      ...["api.address", "grpc.address", "json-rpc.address", "json-rpc.ws-address"].map(app),
    ] as string[];
    const live = [26658, 26657, 6060, 26656, 26660, 1317, 9090, 8545, 8546];
    for (const l of listeners) {
      expect(l).toMatch(/^(tcp:\/\/)?127\.0\.0\.1:\d+$/);
      expect(live).not.toContain(Number(l.split(":").pop()));
    }
    expect(new Set(listeners).size).toBe(listeners.length);
    expect(node("p2p")).toMatchObject({ persistent_peers: "", seeds: "", external_address: "", pex: false });
    expect(node("statesync.enable")).toBe(false);
    expect(node("instrumentation.prometheus")).toBe(false);
    expect(app("halt-height")).toBe(0);
    expect(app("state-sync.snapshot-interval")).toBe(0);
    expect(app("api.enable")).toBe(true);
  });

  it("a listener the files leave out gets a port of its own rather than the default the live node uses", async () => {
    const home = tmp();
    mkdirSync(join(home, "config"));
    writeFileSync(join(home, "config", "config.toml"), "");
    writeFileSync(join(home, "config", "app.toml"), "");
    await isolateCopyConfig(home);
    const [node, app] = [toml(home, "config.toml"), toml(home, "app.toml")];
    for (const l of [node("rpc.laddr"), node("p2p.laddr"), app("grpc.address"), app("api.address")])
      expect(l).toMatch(/^(tcp:\/\/)?127\.0\.0\.1:\d+$/);
  });

  it("holds the database as it was, new keys, a fresh sign state, the running binary linked, and none of what it must not take", async () => {
    const home = tmp();
    const layout = new VisorLayout({ home, name: "chaind", disableRecase: false });
    mkdirSync(join(home, "config"));
    writeFileSync(join(home, "config", "config.toml"), CONFIG_TOML);
    writeFileSync(join(home, "config", "priv_validator_key.json"), '{"live":"validator key"}');
    writeFileSync(join(home, "config", "node_key.json"), '{"live":"node key"}');
    mkdirSync(join(home, "keyring-test"));
    writeFileSync(join(home, "keyring-test", "alice.info"), "secret");
    const db = new Level<string, string>(join(home, "data", "application.db"));
    await db.open();
    for (let i = 0; i < 500; i++) await db.put(`k${i}`, `v${i}`);
    // Held open by the "node" while copied, as a running node holds it.
    writeFileSync(join(home, "data", "priv_validator_state.json"), '{"height":"77","round":0,"step":3}');
    writeFileSync(join(home, "data", "upgrade-info.json.batch"), "[]");
    mkdirSync(join(home, "data", "snapshots", "100"), { recursive: true });
    writeFileSync(join(home, "data", "snapshots", "100", "1"), "chunk");
    mkdirSync(join(home, "data", "wasm"));
    writeFileSync(join(home, "data", "wasm", "code"), "contract");
    mkdirSync(join(layout.genesisDir, "bin"), { recursive: true });
    writeFileSync(join(layout.genesisDir, "bin", "chaind"), "#!/bin/sh\n", { mode: 0o755 });
    mkdirSync(join(layout.upgradesDir, "v0", "bin"), { recursive: true });
    writeFileSync(join(layout.upgradesDir, "v0", "bin", "chaind"), "old");
    symlinkSync("genesis", layout.currentLink);
    writeFileSync(layout.statusFile, '{"child_pid": 1}');

    const dest = join(home, "cosmovisor", "rehearsal", "v2");
    try {
      copyLiveHome(layout, dest, "v2", 0);
    } finally {
      await db.close();
    }
    const copy = new Level<string, string>(join(dest, "data", "application.db"));
    await copy.open();
    expect(await copy.get("k499")).toBe("v499");
    await copy.close();

    const key = JSON.parse(readFileSync(join(dest, "config", "priv_validator_key.json"), "utf8"));
    expect(key.pub_key.type).toBe("tendermint/PubKeyEd25519");
    expect(Buffer.from(key.priv_key.value, "base64")).toHaveLength(64);
    expect(readFileSync(join(dest, "config", "node_key.json"), "utf8")).not.toContain("live");
    expect(JSON.parse(readFileSync(join(dest, "data", "priv_validator_state.json"), "utf8"))).toMatchObject({
      height: "0",
    });
    expect(readFileSync(join(dest, "data", "wasm", "code"), "utf8")).toBe("contract");
    for (const gone of [
      "keyring-test",
      "data/upgrade-info.json.batch",
      "data/snapshots",
      "cosmovisor/visor-status.json",
      "cosmovisor/upgrades/v0",
      "cosmovisor/rehearsal",
    ])
      expect(existsSync(join(dest, gone)), gone).toBe(false);
    expect(readlinkSync(join(dest, "cosmovisor", "current"))).toBe("genesis");
    const bin = join(dest, "cosmovisor", "genesis", "bin", "chaind");
    expect(statSync(bin).ino).toBe(statSync(join(layout.genesisDir, "bin", "chaind")).ino);
    // The live home is as it was.
    expect(readFileSync(join(home, "config", "priv_validator_key.json"), "utf8")).toBe(
      '{"live":"validator key"}',
    );
    expect(readFileSync(join(home, "data", "priv_validator_state.json"), "utf8")).toContain('"77"');
  });
});
