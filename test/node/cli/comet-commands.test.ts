import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pubkeyToRawAddress } from "@cosmjs/amino";
import { bech32 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, type NodeProcess, startTestnet, stopNode } from "../helpers/chaind-process.js";

/** Every file of the home's config folder and keyring, byte for byte. */
function keysAndConfig(home: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of ["config", "keyring-test"])
    for (const f of readdirSync(join(home, dir)))
      out.set(`${dir}/${f}`, readFileSync(join(home, dir, f)).toString("base64"));
  return out;
}

const signState = (home: string) =>
  JSON.parse(readFileSync(join(home, "data", "priv_validator_state.json"), "utf8"));

describe("chaind comet", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess | undefined;
  let rpc: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chaind-comet-"));
    home = join(dir, "home");
    ({ node, rpc } = await startTestnet(home, ["--bech32-prefix", "cmt"]));
  });
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  const validatorKey = () =>
    JSON.parse(readFileSync(join(home, "config", "priv_validator_key.json"), "utf8")).pub_key as {
      type: string;
      value: string;
    };

  it("show-node-id prints the id the running node reports in RPC status", async () => {
    const r = await chaind(["comet", "show-node-id", "--home", home]);
    expect(r.exitCode, r.stderr).toBe(0);
    const status = (await (await fetch(`${rpc.replace(/^tcp:/, "http:")}/status`)).json()) as {
      result: { node_info: { id: string } };
    };
    expect(r.stdout).toBe(status.result.node_info.id);
    expect(r.stdout).toMatch(/^[0-9a-f]{40}$/);
  });

  it("show-validator prints the validator key as proto JSON; tendermint is an alias", async () => {
    const r = await chaind(["tendermint", "show-validator", "--home", home]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      "@type": "/cosmos.crypto.ed25519.PubKey",
      key: validatorKey().value,
    });
  });

  it("show-address prints the consensus address with the chain's valcons prefix", async () => {
    const r = await chaind(["comet", "show-address", "--home", home]);
    expect(r.exitCode, r.stderr).toBe(0);
    const raw = pubkeyToRawAddress(validatorKey());
    expect(r.stdout).toBe(bech32.encode("cmtvalcons", bech32.toWords(raw)));
  });

  it("version prints CometBFT's versions as Cosmos does", async () => {
    const r = await chaind(["comet", "version"]);
    // execa drops the last newline: Cosmos ends with a blank line.
    expect(r.stdout).toBe("ABCI: 2.0.0\nBlockProtocol: 11\nCometBFT: 0.38.17\nP2PProtocol: 8\n");
  });

  it("show-validator in a home without a key is a one-line error", async () => {
    // A folder, but no key in it (a folder that does not exist is refused before: missing-home.test.ts).
    mkdirSync(join(dir, "nowhere"));
    const r = await chaind(["comet", "show-validator", "--home", join(dir, "nowhere")]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^Error: cannot read validator key .*priv_validator_key\.json/);
  });

  it("reset-state and unsafe-reset-all refuse while the node runs; after it stops, reset-state wipes the chain but the sign state", async () => {
    const before = keysAndConfig(home);
    for (const cmd of ["reset-state", "unsafe-reset-all"]) {
      const refused = await chaind(["comet", cmd, "--home", home]);
      expect(refused.exitCode, cmd).not.toBe(0);
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(refused.stderr).toMatch(/^Error: the node of .* is running/);
    }
    expect(existsSync(join(home, "data", "application.db"))).toBe(true);

    await stopNode(node);
    node = undefined;
    const stopped = await chaind(["status", "--home", home]);
    expect(Number(JSON.parse(stopped.stdout).sync_info.latest_block_height)).toBeGreaterThanOrEqual(2);
    writeFileSync(join(home, "data", "upgrade-info.json"), "{}");

    const signed = signState(home);
    expect(Number(signed.height)).toBeGreaterThanOrEqual(2);
    const reset = await chaind(["comet", "reset-state", "--home", home]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(readdirSync(join(home, "data"))).toEqual(["priv_validator_state.json"]);
    // As CometBFT's: the sign state stays, so the validator cannot sign those heights again.
    expect(signState(home)).toEqual(signed);
    expect(keysAndConfig(home)).toEqual(before);
    const refused = await chaind(["start", "--home", home]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `Error: cannot start node: the validator signed a block at height ${signed.height} (${join(home, "data", "priv_validator_state.json")}) but this node's blocks end at height 0`,
    );

    const unsafe = await chaind(["comet", "unsafe-reset-priv-validator", "--home", home]);
    expect(unsafe.exitCode, unsafe.stderr).toBe(0);
    expect(signState(home)).toEqual({ height: "0", round: 0, step: 0 });
    expect(keysAndConfig(home)).toEqual(before);
    // The node starts again from genesis: its first block is height 1.
    const { NodeProcess } = await import("../helpers/chaind-process.js");
    node = new NodeProcess(home);
    await node.waitFor(/committed block .*height=1 /);
    expect(node.lines.some((l) => /committed block .*height=[3-9]/.test(l))).toBe(false);
    await stopNode(node);
    node = undefined;
  });

  it("unsafe-reset-all removes the data folder and the address book unless kept", async () => {
    const before = keysAndConfig(home);
    writeFileSync(join(home, "config", "addrbook.json"), "{}");
    const kept = await chaind(["comet", "unsafe-reset-all", "--keep-addr-book", "--home", home]);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(existsSync(join(home, "config", "addrbook.json"))).toBe(true);
    expect(readdirSync(join(home, "data"))).toEqual(["priv_validator_state.json"]);

    const all = await chaind(["comet", "unsafe-reset-all", "--home", home]);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(existsSync(join(home, "config", "addrbook.json"))).toBe(false);
    expect(signState(home)).toEqual({ height: "0", round: 0, step: 0 });
    expect(keysAndConfig(home)).toEqual(before);
  });

  it("a reset of a folder that is no home is refused", async () => {
    mkdirSync(join(dir, "typo"));
    const r = await chaind(["comet", "reset-state", "--home", join(dir, "typo")]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/^Error: no node home at .*typo/);
    expect(readdirSync(join(dir, "typo"))).toEqual([]);
  });
});
