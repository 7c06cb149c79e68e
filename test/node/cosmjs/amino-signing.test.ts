import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import {
  AuthInfoSchema,
  ModeInfoSchema,
  TxBodySchema,
  TxRawSchema,
} from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { Secp256k1HdWallet } from "@cosmjs/amino";
import {
  type AminoConverters,
  AminoTypes,
  createDefaultAminoConverters,
  SigningStargateClient,
  type StdFee,
} from "@cosmjs/stargate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";
import { GOV_ADDRESS } from "../helpers/gov-flow.js";

interface Key {
  name: string;
  address: string;
  mnemonic: string;
}

const FEE: StdFee = { amount: [{ denom: "stake", amount: "5000" }], gas: "300000" };

/**
 * CosmJS 0.39 has no gov v1 amino converters (cosmjs#1442), so a client writes them, as a wallet does: this
 * is what such a client signs, from the SDK's amino names and JSON rules.
 */
const govV1Converters: AminoConverters = {
  "/cosmos.gov.v1.MsgSubmitProposal": {
    aminoType: "cosmos-sdk/v1/MsgSubmitProposal",
    toAmino: (m: {
      messages: { typeUrl: string; value: Uint8Array }[];
      initialDeposit: { denom: string; amount: string }[];
      proposer: string;
      title: string;
      summary: string;
    }) => ({
      messages: m.messages.map((any) => {
        expect(any.typeUrl).toBe("/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade");
        const up = fromBinary(MsgSoftwareUpgradeSchema, any.value);
        return {
          type: "cosmos-sdk/MsgSoftwareUpgrade",
          value: {
            authority: up.authority,
            plan: {
              name: up.plan!.name,
              time: "0001-01-01T00:00:00Z",
              height: up.plan!.height.toString(),
              info: up.plan!.info,
            },
          },
        };
      }),
      initial_deposit: m.initialDeposit,
      proposer: m.proposer,
      title: m.title,
      summary: m.summary,
    }),
    // CosmJS rebuilds the protobuf body from the signed amino document, so what is broadcast is what was signed.
    fromAmino: (a: {
      messages: { value: { authority: string; plan: { name: string; height: string; info: string } } }[];
      initial_deposit: { denom: string; amount: string }[];
      proposer: string;
      title: string;
      summary: string;
    }) => ({
      messages: a.messages.map((m) => ({
        typeUrl: "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade",
        value: toBinary(
          MsgSoftwareUpgradeSchema,
          create(MsgSoftwareUpgradeSchema, {
            authority: m.value.authority,
            plan: { name: m.value.plan.name, height: BigInt(m.value.plan.height), info: m.value.plan.info },
          }),
        ),
      })),
      initialDeposit: a.initial_deposit,
      proposer: a.proposer,
      metadata: "",
      title: a.title,
      summary: a.summary,
      expedited: false,
    }),
  },
  "/cosmos.gov.v1.MsgVote": {
    aminoType: "cosmos-sdk/v1/MsgVote",
    toAmino: (m: { proposalId: bigint; voter: string; option: number }) => ({
      option: m.option,
      proposal_id: m.proposalId.toString(),
      voter: m.voter,
    }),
    fromAmino: (a: { option: number; proposal_id: string; voter: string }) => ({
      proposalId: BigInt(a.proposal_id),
      voter: a.voter,
      option: a.option,
      metadata: "",
    }),
  },
};

/** The sign mode of each signer info of a committed or broadcast tx. */
function signModes(txRaw: Uint8Array): (SignMode | "multi")[] {
  const authInfo = fromBinary(AuthInfoSchema, fromBinary(TxRawSchema, txRaw).authInfoBytes);
  return authInfo.signerInfos.map((i) =>
    i.modeInfo?.sum.case === "single" ? i.modeInfo.sum.value.mode : "multi",
  );
}

describe("SIGN_MODE_LEGACY_AMINO_JSON from CosmJS's Secp256k1HdWallet and the CLI, through the RPC", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let keys: Record<string, Key>;
  let valoper: string;
  let alice: SigningStargateClient;
  let validator: SigningStargateClient;
  let proposalId: bigint;
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc]);

  async function aminoClient(key: Key): Promise<SigningStargateClient> {
    const wallet = await Secp256k1HdWallet.fromMnemonic(key.mnemonic, { prefix: "sdk" });
    return SigningStargateClient.connectWithSigner(rpc, wallet, {
      aminoTypes: new AminoTypes({ ...createDefaultAminoConverters(), ...govV1Converters }),
    });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "amino-signing-"));
    home = join(dir, "home");
    const made = await chaind([
      "testnet",
      "--home",
      home,
      "--chain-id",
      "amino-1",
      "--block-time",
      "200ms",
      "--voting-period",
      "60s",
    ]);
    expect(made.exitCode, made.stderr).toBe(0);
    keys = Object.fromEntries((JSON.parse(made.stdout).keys as Key[]).map((k) => [k.name, k]));
    const genesis = JSON.parse(readFileSync(join(home, "config/genesis.json"), "utf8"));
    valoper = genesis.app_state.staking.validators[0].operator_address;
    listenOnPickedPorts(home);
    node = new NodeProcess(home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2 /);
    alice = await aminoClient(keys.alice);
    validator = await aminoClient(keys.validator);
  });
  afterAll(async () => {
    alice?.disconnect();
    validator?.disconnect();
    node.proc.kill("SIGTERM");
    await node.proc;
    rmSync(dir, { recursive: true, force: true });
  });

  it("a bank send signed by Secp256k1HdWallet commits, and the tx carries SIGN_MODE_LEGACY_AMINO_JSON", async () => {
    const before = await alice.getBalance(keys.carol.address, "stake");
    const r = await alice.sendTokens(
      keys.alice.address,
      keys.carol.address,
      [{ denom: "stake", amount: "777" }],
      FEE,
      "<amino> & co",
    );
    expect(r.code, r.rawLog).toBe(0);
    const after = await alice.getBalance(keys.carol.address, "stake");
    expect(BigInt(after.amount) - BigInt(before.amount)).toBe(777n);
    const tx = await alice.getTx(r.transactionHash);
    expect(signModes(tx!.tx)).toEqual([SignMode.LEGACY_AMINO_JSON]);
  });

  it("a delegation signed in amino JSON commits", async () => {
    const r = await alice.delegateTokens(
      keys.alice.address,
      valoper,
      { denom: "stake", amount: "1000000" },
      FEE,
      "",
    );
    expect(r.code, r.rawLog).toBe(0);
    expect(await alice.getDelegation(keys.alice.address, valoper)).toEqual({
      denom: "stake",
      amount: "1000000",
    });
  });

  it("a gov v1 proposal holding MsgSoftwareUpgrade, then the validator's v1 vote, both signed in amino JSON", async () => {
    const upgrade = toBinary(
      MsgSoftwareUpgradeSchema,
      create(MsgSoftwareUpgradeSchema, {
        authority: GOV_ADDRESS,
        plan: { name: "amino-upgrade", height: 100000n, info: "from a Ledger" },
      }),
    );
    const submit = await alice.signAndBroadcast(
      keys.alice.address,
      [
        {
          typeUrl: "/cosmos.gov.v1.MsgSubmitProposal",
          value: {
            messages: [{ typeUrl: "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade", value: upgrade }],
            initialDeposit: [{ denom: "stake", amount: "10000000" }],
            proposer: keys.alice.address,
            metadata: "",
            title: "Upgrade signed on a Ledger",
            summary: "amino JSON",
            expedited: false,
          },
        },
      ],
      FEE,
    );
    expect(submit.code, submit.rawLog).toBe(0);
    const attr = submit.events
      .find((e) => e.type === "submit_proposal")!
      .attributes.find((a) => a.key === "proposal_id");
    proposalId = BigInt(attr!.value);
    // The stored proposal holds the upgrade as signed, and the CLI prints its cosmos. Any as it was sent.
    const shown = await cli("query", "gov", "proposal", proposalId.toString(), "-o", "json");
    expect(shown.exitCode, shown.stderr).toBe(0);
    const [message] = JSON.parse(shown.stdout).proposal.messages;
    expect(message["@type"]).toBe("/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade");
    expect(message.plan).toMatchObject({ name: "amino-upgrade", height: "100000", info: "from a Ledger" });
    const text = await cli("query", "gov", "proposal", proposalId.toString(), "-o", "text");
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/'@type': \/cosmos\.upgrade\.v1beta1\.MsgSoftwareUpgrade\n\s+authority: /);

    const vote = await validator.signAndBroadcast(
      keys.validator.address,
      [
        {
          typeUrl: "/cosmos.gov.v1.MsgVote",
          value: { proposalId, voter: keys.validator.address, option: 1, metadata: "" },
        },
      ],
      FEE,
    );
    expect(vote.code, vote.rawLog).toBe(0);
    const got = await cli("query", "gov", "votes", proposalId.toString(), "-o", "json");
    expect(got.exitCode, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).votes).toMatchObject([
      {
        voter: keys.validator.address,
        options: [{ option: "VOTE_OPTION_YES", weight: "1.000000000000000000" }],
      },
    ]);
  });

  it("gov v1beta1 deposit and weighted vote, signed in amino JSON with CosmJS's own v1beta1 converters", async () => {
    const r = await alice.signAndBroadcast(
      keys.alice.address,
      [
        {
          typeUrl: "/cosmos.gov.v1beta1.MsgDeposit",
          value: {
            proposalId,
            depositor: keys.alice.address,
            amount: [{ denom: "stake", amount: "100000" }],
          },
        },
        {
          typeUrl: "/cosmos.gov.v1beta1.MsgVoteWeighted",
          value: {
            proposalId,
            voter: keys.alice.address,
            options: [
              { option: 1, weight: "700000000000000000" },
              { option: 3, weight: "300000000000000000" },
            ],
          },
        },
      ],
      FEE,
    );
    expect(r.code, r.rawLog).toBe(0);
    expect(signModes((await alice.getTx(r.transactionHash))!.tx)).toEqual([SignMode.LEGACY_AMINO_JSON]);
    // The testnet's voting period may be over by now (votes are pruned at the tally), so read the vote's event.
    const voted = r.events.find((e) => e.type === "proposal_vote");
    expect(JSON.parse(voted!.attributes.find((a) => a.key === "option")!.value)).toEqual([
      { option: "YES", weight: "0.700000000000000000" },
      { option: "NO", weight: "0.300000000000000000" },
    ]);
  });

  it("refuses an amino-signed tx whose signature or signed content was tampered with", async () => {
    const { accountNumber, sequence } = await alice.getSequence(keys.alice.address);
    const signed = await alice.sign(
      keys.alice.address,
      [
        {
          typeUrl: "/cosmos.bank.v1beta1.MsgSend",
          value: {
            fromAddress: keys.alice.address,
            toAddress: keys.carol.address,
            amount: [{ denom: "stake", amount: "5" }],
          },
        },
      ],
      FEE,
      "honest memo",
      { accountNumber, sequence, chainId: "amino-1" },
    );
    const flipped = Uint8Array.from(signed.signatures[0]);
    flipped[10] ^= 0x01;
    const body = fromBinary(TxBodySchema, signed.bodyBytes);
    body.memo = "changed memo";
    const tampered = [
      { ...signed, signatures: [flipped] },
      { ...signed, bodyBytes: toBinary(TxBodySchema, body) },
    ];
    for (const t of tampered) {
      const raw = toBinary(TxRawSchema, create(TxRawSchema, t));
      await expect(alice.broadcastTx(raw)).rejects.toThrow(/code 4 .*signature verification failed/);
    }
    // The untouched one is fine: the refusals above were the tampering's doing.
    const ok = await alice.broadcastTx(toBinary(TxRawSchema, create(TxRawSchema, signed)));
    expect(ok.code, ok.rawLog).toBe(0);
  });

  it("names a sign mode the node does not verify", async () => {
    const { accountNumber, sequence } = await alice.getSequence(keys.alice.address);
    const signed = await alice.sign(
      keys.alice.address,
      [
        {
          typeUrl: "/cosmos.bank.v1beta1.MsgSend",
          value: {
            fromAddress: keys.alice.address,
            toAddress: keys.carol.address,
            amount: [{ denom: "stake", amount: "5" }],
          },
        },
      ],
      FEE,
      "",
      { accountNumber, sequence, chainId: "amino-1" },
    );
    const authInfo = fromBinary(AuthInfoSchema, signed.authInfoBytes);
    authInfo.signerInfos[0].modeInfo = create(ModeInfoSchema, {
      sum: { case: "single", value: { mode: SignMode.TEXTUAL } },
    });
    const raw = toBinary(
      TxRawSchema,
      create(TxRawSchema, { ...signed, authInfoBytes: toBinary(AuthInfoSchema, authInfo) }),
    );
    await expect(alice.broadcastTx(raw)).rejects.toThrow(
      /SIGN_MODE_TEXTUAL is not supported; this node accepts SIGN_MODE_DIRECT and SIGN_MODE_LEGACY_AMINO_JSON/,
    );
  });

  it("CLI: tx bank send --sign-mode amino-json, and tx sign --sign-mode amino-json by two signers (a fee payer)", async () => {
    const sent = await cli(
      "tx",
      "bank",
      "send",
      "alice",
      keys.carol.address,
      "11stake",
      "--fees",
      "5000stake",
      "--sign-mode",
      "amino-json",
      "--wait",
      "-o",
      "json",
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const txhash = /"?txhash"?:\s*"?([0-9A-F]{64})/.exec(sent.stdout)![1];
    expect(signModes((await alice.getTx(txhash))!.tx)).toEqual([SignMode.LEGACY_AMINO_JSON]);

    const file = (n: string) => join(dir, n);
    const gen = await cli(
      "tx",
      "bank",
      "send",
      "alice",
      keys.carol.address,
      "13stake",
      "--fees",
      "5000stake",
      "--fee-payer",
      keys.bob.address,
      "--generate-only",
    );
    expect(gen.exitCode, gen.stderr).toBe(0);
    writeFileSync(file("unsigned.json"), gen.stdout);
    const bobBefore = await alice.getBalance(keys.bob.address, "stake");
    for (const [from, input, output] of [
      ["alice", "unsigned.json", "alice.json"],
      ["bob", "alice.json", "both.json"],
    ]) {
      const s = await cli(
        "tx",
        "sign",
        file(input),
        "--from",
        from,
        "--sign-mode",
        "amino-json",
        "--output-document",
        file(output),
      );
      expect(s.exitCode, s.stderr).toBe(0);
    }
    // bob signing after alice kept alice's amino signature: it does not cover the signer infos.
    const both = JSON.parse(readFileSync(file("both.json"), "utf8"));
    expect(both.signatures.every((s: string) => s.length > 0)).toBe(true);
    const b = await cli("tx", "broadcast", file("both.json"));
    expect(b.exitCode, b.stderr).toBe(0);
    const hash = /"?txhash"?:\s*"?([0-9A-F]{64})/.exec(b.stdout)![1];
    let found: { code: number } | null = null;
    while (!found) {
      found = await alice.getTx(hash);
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found.code).toBe(0);
    const bobAfter = await alice.getBalance(keys.bob.address, "stake");
    expect(BigInt(bobBefore.amount) - BigInt(bobAfter.amount)).toBe(5000n);
  });
});
