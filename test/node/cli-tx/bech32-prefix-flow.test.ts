import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { moduleAddress } from "../../../node/src/crypto/address.js";
import {
  chaind,
  type NodeProcess,
  startTestnet,
  stopNode,
  type TestnetKey,
} from "../helpers/chaind-process.js";

const FEES = ["--gas-prices", "0.0001stake"];
const INFO = JSON.stringify({
  binaries: { "linux/amd64": `http://127.0.0.1:1/v2?checksum=sha256:${"a".repeat(64)}` },
});
/** An address of another chain (the default prefix). */
const SDK_ADDRESS = new AddressCodec("sdk").toString(new Uint8Array(20).fill(1));

describe("a chain with its own bech32 prefix: keys, sends and the whole upgrade proposal flow through the CLI", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let keys: TestnetKey[];
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc]);
  const key = (name: string) => keys.find((k) => k.name === name)!;
  const gov = new AddressCodec("wasm").toString(moduleAddress("gov"));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "prefix-flow-"));
    home = join(dir, "home");
    ({ node, rpc, keys } = await startTestnet(home, [
      ...["--chain-id", "wasm-1", "--bech32-prefix", "wasm", "--keys", "2"],
      ...["--block-time", "100ms", "--voting-period", "12s"],
    ]));
  });
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("keys and sends use the chain's prefix, and a bad prefix is refused at init", async () => {
    expect(keys.map((k) => k.address.slice(0, 5))).toEqual(["wasm1", "wasm1", "wasm1"]);
    const shown = await chaind(["keys", "show", "alice", "-a", "--home", home]);
    expect(shown.stdout.trim()).toBe(key("alice").address);
    const sent = await cli("tx", "bank", "send", "alice", key("bob").address, "7stake", ...FEES, "--wait");
    expect(sent.exitCode, sent.stderr).toBe(0);
    const wrong = await cli("tx", "bank", "send", "alice", SDK_ADDRESS, "1stake");
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stderr.trim().split("\n")).toHaveLength(1);

    const bad = await chaind(["init", "x", "--home", join(dir, "bad"), "--bech32-prefix", "Wasm!"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.trim()).toBe(
      'Error: bech32 prefix must be lower-case letters and digits, starting with a letter: "Wasm!"',
    );
  });

  it("--generate-only --from an address the keyring does not hold needs no key", async () => {
    const offline = new AddressCodec("wasm").toString(new Uint8Array(20).fill(7));
    const gen = await cli(
      "tx",
      "bank",
      "send",
      offline,
      key("alice").address,
      "1stake",
      ...FEES,
      "--generate-only",
    );
    expect(gen.exitCode, gen.stderr).toBe(0);
    expect(JSON.parse(gen.stdout).body.messages[0]).toMatchObject({
      "@type": "/cosmos.bank.v1beta1.MsgSend",
      from_address: offline,
    });
    const unknown = await cli(
      "tx",
      "bank",
      "send",
      "nobody",
      key("alice").address,
      "1stake",
      "--generate-only",
    );
    expect(unknown.stderr.trim()).toBe(
      "Error: --from: nobody is neither a key in the keyring nor a wasm address",
    );
  });

  it("software-upgrade: the gov authority under the chain's prefix by default, --authority checked; proposal passes, plan set", async () => {
    const propose = (...extra: string[]) =>
      cli(
        ...[
          "tx",
          "upgrade",
          "software-upgrade",
          "v2",
          "--title",
          "t",
          "--summary",
          "s",
          "--deposit",
          "10000000stake",
        ],
        ...["--upgrade-height", "100000", "--upgrade-info", INFO, "--from", "validator"],
        ...FEES,
        ...extra,
      );
    const foreign = await propose("--authority", SDK_ADDRESS, "--generate-only");
    expect(foreign.exitCode).toBe(1);
    expect(foreign.stderr.trim()).toMatch(/^Error: .*--authority/);
    const generated = await propose("--authority", gov, "--expedited", "--generate-only");
    expect(generated.exitCode, generated.stderr).toBe(0);
    const [proposal] = JSON.parse(generated.stdout).body.messages;
    expect(proposal.messages[0].authority).toBe(gov);
    expect(proposal.expedited).toBe(true);

    const submitted = await propose("--wait", "-o", "json");
    expect(submitted.exitCode, submitted.stderr).toBe(0);
    const id = JSON.parse(submitted.stdout)
      .events.find((e: { type: string }) => e.type === "submit_proposal")
      .attributes.find((a: { key: string }) => a.key === "proposal_id").value;
    const voted = await cli("tx", "gov", "vote", id, "yes", "--from", "validator", ...FEES, "--wait");
    expect(voted.exitCode, voted.stderr).toBe(0);
    for (;;) {
      const p = JSON.parse((await cli("query", "gov", "proposal", id, "-o", "json")).stdout).proposal;
      expect(p.messages[0].authority).toBe(gov);
      if (p.status !== "PROPOSAL_STATUS_VOTING_PERIOD") {
        expect(p.status).toBe("PROPOSAL_STATUS_PASSED");
        break;
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    const plan = JSON.parse((await cli("query", "upgrade", "plan", "-o", "json")).stdout);
    expect(plan).toMatchObject({ name: "v2", height: "100000" });
  });
});
