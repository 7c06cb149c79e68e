import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMultisigThresholdPubkey, pubkeyToAddress } from "@cosmjs/amino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chaind,
  type NodeProcess,
  startTestnet,
  stopNode,
  type TestnetKey,
} from "../helpers/chaind-process.js";

const FEES = ["--gas-prices", "0.0001stake", "--gas", "300000"];

/** Issue 17's done-when: an upgrade proposal submitted from a 2-of-3 multisig account, all through the CLI. */
describe("a 2-of-3 multisig key in the CLI: keys add --multisig, tx sign --multisig, tx multisign, broadcast", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let keys: TestnetKey[];
  let team: string;
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc]);
  const local = (...args: string[]) => chaind([...args, "--home", home]);
  const file = (name: string) => join(dir, name);
  const ok = async (p: ReturnType<typeof chaind>) => {
    const r = await p;
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout;
  };
  async function committed(txhash: string) {
    for (;;) {
      const found = await cli("query", "tx", txhash, "-o", "json");
      if (found.exitCode === 0) return JSON.parse(found.stdout);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "multisig-cli-"));
    home = join(dir, "home");
    ({ node, rpc, keys } = await startTestnet(home, ["--block-time", "100ms", "--voting-period", "20s"]));
  });
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("keys add --multisig stores an offline key whose address is the one Cosmos and CosmJS derive", async () => {
    const made = JSON.parse(
      await ok(
        local(
          "keys",
          "add",
          "team",
          "--multisig",
          "alice,bob,carol",
          "--multisig-threshold",
          "2",
          "-o",
          "json",
        ),
      ),
    );
    team = made.address;
    expect(made.type).toBe("multi");
    const members = await Promise.all(
      ["alice", "bob", "carol"].map(
        async (n) => JSON.parse(await ok(local("keys", "show", n, "-p"))).key as string,
      ),
    );
    const cosmjs = createMultisigThresholdPubkey(
      members.map((value) => ({ type: "tendermint/PubKeySecp256k1", value })),
      2,
    );
    expect(team).toBe(pubkeyToAddress(cosmjs, "sdk"));
    expect(JSON.parse(made.pubkey)).toMatchObject({
      "@type": "/sdk.crypto.multisig.LegacyAminoPubKey",
      threshold: 2,
    });
    const sign = await cli("tx", "bank", "send", "team", keys[0].address, "1stake", ...FEES);
    expect(sign.exitCode).toBe(1);
    expect(sign.stderr.trim()).toMatch(/key "team" is a multisig key: its members sign/);
  });

  it("an upgrade proposal from the multisig account, signed by alice and carol, passes and schedules the plan", async () => {
    await ok(cli("tx", "bank", "send", "validator", team, "50000000stake", ...FEES, "--wait"));
    const unsigned = await ok(
      cli(
        ...["tx", "upgrade", "software-upgrade", "v2", "--title", "team", "--summary", "2 of 3"],
        ...["--deposit", "10000000stake", "--upgrade-height", "100000", "--no-validate"],
        ...["--upgrade-info", '{"binaries":{}}', "--from", team, ...FEES, "--generate-only"],
      ),
    );
    writeFileSync(file("unsigned.json"), unsigned);
    for (const member of ["alice", "carol"])
      await ok(
        cli(
          ...["tx", "sign", file("unsigned.json"), "--from", member, "--multisig", "team"],
          ...["--output-document", file(`${member}.json`)],
        ),
      );
    const short = await cli("tx", "multisign", file("unsigned.json"), "team", file("alice.json"));
    expect(short.exitCode).toBe(1);
    expect(short.stderr.trim()).toBe("Error: not enough signatures: 1 of threshold 2");
    await ok(
      cli(
        ...["tx", "multisign", file("unsigned.json"), "team", file("alice.json"), file("carol.json")],
        ...["--output-document", file("signed.json")],
      ),
    );
    const sent = JSON.parse(await ok(cli("tx", "broadcast", file("signed.json"), "-o", "json")));
    const result = await committed(sent.txhash);
    expect(result.code, result.raw_log).toBe(0);
    const id = result.events
      .find((e: { type: string }) => e.type === "submit_proposal")
      .attributes.find((a: { key: string }) => a.key === "proposal_id").value;
    await ok(cli("tx", "gov", "vote", id, "yes", "--from", "validator", ...FEES, "--wait"));
    for (;;) {
      const p = JSON.parse(await ok(cli("query", "gov", "proposal", id, "-o", "json"))).proposal;
      expect(p.proposer).toBe(team);
      if (p.status !== "PROPOSAL_STATUS_VOTING_PERIOD") {
        expect(p.status).toBe("PROPOSAL_STATUS_PASSED");
        break;
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(JSON.parse(await ok(cli("query", "upgrade", "plan", "-o", "json")))).toMatchObject({ name: "v2" });
  });
});
