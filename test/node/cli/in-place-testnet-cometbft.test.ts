import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { LineCollector } from "@chaind/harness/line-collector";
import { LocalNetwork } from "@chaind/harness/local-network";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { CHAIND_BIN, chaind } from "../helpers/chaind-process.js";

const cometbft = referenceBinary("cometbft");
if ("missing" in cometbft) console.log(`skipping in-place-testnet on a CometBFT home: ${cometbft.missing}`);

const FEES = ["--gas-prices", "0.0001stake"];
const valoperOf = (address: string) =>
  new AddressCodec("sdkvaloper").toString(new AddressCodec("sdk").fromString(address));

/**
 * A copy of one validator's home of a real four-validator CometBFT network becomes a one-validator chain that
 * node1's key drives alone, with the network's balances and proposals.
 */
describe.skipIf("missing" in cometbft)(
  "chaind in-place-testnet on a copy of a CometBFT validator's home",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "inplace-comet-"));
    let net: LocalNetwork | undefined;
    let proc: ReturnType<typeof execa> | undefined;

    afterAll(async () => {
      proc?.kill("SIGTERM");
      await proc;
      await net?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("converts node1's copy: one key drives it, with the original balances and proposals", async () => {
      // visor installs this as the genesis binary: the chaind of this checkout.
      const binary = join(dir, "chaind");
      writeFileSync(binary, `#!/bin/sh\nexec node ${CHAIND_BIN} "$@"\n`, { mode: 0o755 });
      net = await LocalNetwork.create({
        dir: join(dir, "net"),
        validators: 4,
        genesisBinary: binary,
        cometbft: (cometbft as { path: string }).path,
        blockTime: "300ms",
        votingPeriod: "600s",
        visorEnv: { UNSAFE_SKIP_BACKUP: "true" },
      });
      await net.start();
      await net.waitForHeight(2);
      const [node0, node1] = net.nodes;
      const address = async (home: string) =>
        (await chaind(["keys", "show", "validator", "-a", "--home", home])).stdout.trim();
      const operator = await address(node1.home);
      const other = await address(node0.home);
      // A proposal in its voting period, which the conversion must keep.
      await node0.submitUpgrade({ name: "later", height: 1_000_000, info: "http://127.0.0.1:9/later.json" });
      const balanceOf = async (cli: (a: string[]) => Promise<string>, address: string) =>
        JSON.parse(await cli(["q", "bank", "balance", address, "stake", "-o", "json"])).balance
          .amount as string;
      const kept = await balanceOf((a) => node0.cli(a), other);
      await net.stop();
      net = undefined;
      const before = Number(
        JSON.parse((await chaind(["status", "--home", node1.home])).stdout).sync_info.latest_block_height,
      );
      expect(before).toBeGreaterThan(2);

      const copy = join(dir, "node1-testnet");
      cpSync(node1.home, copy, { recursive: true });
      listenOnPickedPorts(copy);
      proc = execa(
        "node",
        [CHAIND_BIN, "in-place-testnet", "comet-test-1", operator, "--home", copy, "--skip-confirmation"],
        { reject: false, all: true, buffer: false },
      );
      const out = new LineCollector(proc.all!);
      const rpc = (await out.waitFor(/\brpc listening address=(\S+)/, 60_000))[1];
      await out.waitFor(/committed block /, 60_000);
      const cli = async (args: string[]) => {
        const r = await chaind([...args, "--home", copy, "--node", rpc]);
        if (r.exitCode !== 0) throw new Error(`chaind ${args.join(" ")}: ${r.stderr}`);
        return r.stdout;
      };
      expect(readFileSync(join(copy, "config/config.toml"), "utf8")).toMatch(
        /^consensus_engine = "embedded"/m,
      );
      const status = JSON.parse(await cli(["status"]));
      expect(status.node_info.network).toBe("comet-test-1");
      const first = Number(
        out.lines.map((l) => l.match(/committed block .*height=(\d+) /)?.[1]).find(Boolean),
      );
      expect(first).toBe(before + 1);

      // The network's balances as of the copy, and its proposal.
      const original = Number(await balanceOf(cli, other));
      expect(String(original)).toBe(kept);
      const proposal = JSON.parse(await cli(["q", "gov", "proposal", "1", "-o", "json"])).proposal;
      expect(proposal.status).toBe("PROPOSAL_STATUS_VOTING_PERIOD");

      // One bonded validator, node1's operator on node1's key; the other three are kept, unbonded.
      type V = { operator_address: string; status: string };
      const validators = JSON.parse(await cli(["q", "staking", "validators", "-o", "json"]))
        .validators as V[];
      expect(validators).toHaveLength(4);
      expect(
        validators.filter((v) => v.status === "BOND_STATUS_BONDED").map((v) => v.operator_address),
      ).toEqual([valoperOf(operator)]);

      // node1's key alone makes blocks and moves funds.
      await cli(["tx", "bank", "send", "validator", other, "777stake", ...FEES, "--wait"]);
      expect(Number(await balanceOf(cli, other))).toBe(original + 777);
    }, 300_000);
  },
);
