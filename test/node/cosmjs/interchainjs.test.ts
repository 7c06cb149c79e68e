import {
  AminoSigner,
  type CosmosBroadcastResponse,
  createCosmosEventClient,
  createCosmosQueryClient,
  DirectSigner,
  type ICosmosQueryClient,
  Secp256k1HDWallet,
} from "@interchainjs/cosmos";
import type { BaseAccount } from "interchainjs/cosmos/auth/v1beta1/auth";
import { getAccount } from "interchainjs/cosmos/auth/v1beta1/query.rpc.func";
import { getAllBalances, getBalance } from "interchainjs/cosmos/bank/v1beta1/query.rpc.func";
import { send } from "interchainjs/cosmos/bank/v1beta1/tx.rpc.func";
import { ProposalStatus, VoteOption } from "interchainjs/cosmos/gov/v1/gov";
import { getProposal, getVote } from "interchainjs/cosmos/gov/v1/query.rpc.func";
import { submitProposal, vote } from "interchainjs/cosmos/gov/v1/tx.rpc.func";
import { SignMode } from "interchainjs/cosmos/tx/signing/v1beta1/signing";
import { Tx } from "interchainjs/cosmos/tx/v1beta1/tx";
import { getCurrentPlan } from "interchainjs/cosmos/upgrade/v1beta1/query.rpc.func";
import { MsgSoftwareUpgrade } from "interchainjs/cosmos/upgrade/v1beta1/tx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { NodeProcess } from "../helpers/chaind-process.js";
import { GOV_ADDRESS } from "../helpers/gov-flow.js";
import { makeTestHome, type TestAccount } from "../helpers/test-home.js";

// The BIP39 test vector mnemonic: well-known keys (accounts 0 and 1), funded in genesis.
const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const FEE = { amount: [{ denom: "stake", amount: "5000" }], gas: "400000" };
const STAKE = 700_000n;
/** Long enough for the submits and the vote to land inside it on a loaded machine, short enough to wait out. */
const VOTING_MS = 10_000;

// A real chaind process; InterchainJS 1.21 (@interchainjs/cosmos with the `interchainjs` message and query
// functions) talks to its CometBFT RPC, as a dApp does.
describe("stock InterchainJS against the node", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let rpc: string;
  let query: ICosmosQueryClient;
  let validator: string;
  let bob: string;
  let direct: DirectSigner;
  let amino: AminoSigner;
  let textId: bigint;
  let upgradeId: bigint;

  /** Waits for a broadcast tx's block, polling `tx` more often than the library's default. */
  const landed = (r: { transactionHash: string }) =>
    // The message functions type what the signers answer as the generic broadcast result.
    (r as CosmosBroadcastResponse).wait(60_000, 200);

  /** The proposal id a committed submit tx's events name. */
  const proposalIdOf = (events: { type: string; attributes: { key: string; value: string }[] }[]) =>
    BigInt(
      events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!
        .value,
    );

  beforeAll(async () => {
    const wallet = await Secp256k1HDWallet.fromMnemonic(MNEMONIC, {
      derivations: [
        { prefix: "sdk", hdPath: "m/44'/118'/0'/0/0" },
        { prefix: "sdk", hdPath: "m/44'/118'/0'/0/1" },
      ],
    });
    [{ address: validator }, { address: bob }] = await wallet.getAccountsData();
    home = makeTestHome({
      chainId: "interchainjs-1",
      accounts: [
        { account: { address: validator } as TestAccount, coins: "50000000stake" },
        { account: { address: bob } as TestAccount, coins: "50000000stake" },
      ],
      validator: { account: { address: validator } as TestAccount, stake: STAKE },
      govPeriodMs: VOTING_MS,
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = 200;
      },
    });
    node = new NodeProcess(home.home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2/);
    query = await createCosmosQueryClient(rpc);
    const config = { chainId: "interchainjs-1", queryClient: query, addressPrefix: "sdk" };
    direct = new DirectSigner(wallet, config);
    amino = new AminoSigner(wallet, config);
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  it("reads the chain, balances and the account through the CometBFT RPC", async () => {
    const status = await query.getStatus();
    expect(status.nodeInfo.network).toBe("interchainjs-1");
    expect(status.syncInfo.latestBlockHeight).toBeGreaterThanOrEqual(2);
    const { balances } = await getAllBalances(query, { address: bob, resolveDenom: false });
    expect(balances).toEqual([{ denom: "stake", amount: "50000000" }]);
    const { balance } = await getBalance(query, { address: validator, denom: "stake" });
    expect(balance).toEqual({ denom: "stake", amount: "50000000" });

    // The query function unpacks the Any by its type URL.
    const decoded = (await getAccount(query, { address: bob })).account as BaseAccount;
    expect(decoded.$typeUrl).toBe("/cosmos.auth.v1beta1.BaseAccount");
    expect(decoded.address).toBe(bob);
    expect(decoded.sequence).toBe(0n);
    // The library's own account reader, used by its signers for the number and sequence.
    const base = await query.getBaseAccount(validator);
    const mine = (await getAccount(query, { address: validator })).account as BaseAccount;
    expect(base?.address).toBe(validator);
    expect(base?.accountNumber).toBe(mine.accountNumber);
    expect(base?.accountNumber).not.toBe(decoded.accountNumber);
  });

  it("decodes blocks, commits, validators and consensus params from the CometBFT methods", async () => {
    const block = await query.getBlock(2);
    expect(block.header.chainId).toBe("interchainjs-1");
    expect(block.header.height).toBe(2);
    const header = await query.getHeader(2);
    expect(Buffer.from(header.appHash)).toEqual(Buffer.from(block.header.appHash));
    await node.waitFor(/committed block .*height=3 /);
    const next = await query.getBlock(3);
    const byHash = await query.getBlockByHash(Buffer.from(next.header.lastBlockId!.hash).toString("hex"));
    expect(byHash.header.height).toBe(2);
    const commit = await query.getCommit(2);
    expect(Buffer.from(commit.blockId.hash)).toEqual(Buffer.from(next.header.lastBlockId!.hash));
    expect(commit.signatures).toHaveLength(1);
    const { validators, total } = await query.getValidators(2);
    expect(total).toBe(1);
    expect(Buffer.from(validators[0].address)).toEqual(Buffer.from(block.header.proposerAddress));
    expect((await query.getConsensusParams(2)).validator?.pubKeyTypes).toEqual(["ed25519"]);
    expect((await query.getAbciInfo()).lastBlockHeight).toBeGreaterThanOrEqual(3);
    expect((await query.getGenesis()).genesis.chainId).toBe("interchainjs-1");
    expect((await query.getNetInfo()).nPeers).toBe(0);
    expect((await query.searchBlocks({ query: "block.height <= 2" })).totalCount).toBe(2);
  });

  it("sends with direct signing and finds the tx by hash", async () => {
    const r = await send(
      direct,
      bob,
      { fromAddress: bob, toAddress: validator, amount: [{ denom: "stake", amount: "1234" }] },
      FEE,
      "direct",
    );
    const committed = await landed(r);
    expect(committed.code, committed.rawLog).toBe(0);
    const { balance } = await getBalance(query, { address: bob, denom: "stake" });
    expect(BigInt(balance!.amount)).toBe(50_000_000n - 1234n - 5000n);

    const found = await query.getTx(r.transactionHash);
    expect(Buffer.from(found.hash).toString("hex").toUpperCase()).toBe(r.transactionHash.toUpperCase());
    expect(found.height).toBe(Number(committed.height));
    expect(found.txResult.code).toBe(0);
    const tx = Tx.decode(found.tx);
    expect(tx.body!.memo).toBe("direct");
    expect(tx.authInfo!.signerInfos[0].modeInfo!.single!.mode).toBe(SignMode.SIGN_MODE_DIRECT);
  });

  it("sends with amino JSON signing", async () => {
    const before = BigInt((await getBalance(query, { address: validator, denom: "stake" })).balance!.amount);
    const r = await send(
      amino,
      bob,
      { fromAddress: bob, toAddress: validator, amount: [{ denom: "stake", amount: "77" }] },
      FEE,
      "amino",
    );
    const committed = await landed(r);
    expect(committed.code, committed.rawLog).toBe(0);
    const after = BigInt((await getBalance(query, { address: validator, denom: "stake" })).balance!.amount);
    expect(after - before).toBe(77n);
    const tx = Tx.decode((await query.getTx(r.transactionHash)).tx);
    expect(tx.authInfo!.signerInfos[0].modeInfo!.single!.mode).toBe(SignMode.SIGN_MODE_LEGACY_AMINO_JSON);
    expect(tx.authInfo!.signerInfos[0].sequence).toBe(1n);
  });

  it("submits a gov v1 text proposal (metadata, no messages) and an upgrade proposal by the gov authority", async () => {
    const text = await submitProposal(
      direct,
      bob,
      {
        messages: [],
        initialDeposit: [{ denom: "stake", amount: "1000" }],
        proposer: bob,
        metadata: "ipfs://text-proposal",
        title: "Signal",
        summary: "A text proposal from InterchainJS",
        expedited: false,
      },
      FEE,
      "",
    );
    const textTx = await landed(text);
    expect(textTx.code, textTx.rawLog).toBe(0);
    textId = proposalIdOf(textTx.events);

    const plan = { name: "ijs-upgrade", height: 1_000_000n, info: "from InterchainJS" };
    const upgrade = await submitProposal(
      direct,
      validator,
      {
        messages: [
          {
            typeUrl: MsgSoftwareUpgrade.typeUrl,
            value: MsgSoftwareUpgrade.encode(
              MsgSoftwareUpgrade.fromPartial({ authority: GOV_ADDRESS, plan }),
            ).finish(),
          },
        ],
        initialDeposit: [{ denom: "stake", amount: "1000" }],
        proposer: validator,
        metadata: "",
        title: "Upgrade",
        summary: "To ijs-upgrade",
        expedited: false,
      },
      FEE,
      "",
    );
    const upgradeTx = await landed(upgrade);
    expect(upgradeTx.code, upgradeTx.rawLog).toBe(0);
    upgradeId = proposalIdOf(upgradeTx.events);
    expect(upgradeId).toBe(textId + 1n);

    const { proposal: stored } = await getProposal(query, { proposalId: textId });
    expect(stored!.messages).toEqual([]);
    expect(stored!.metadata).toBe("ipfs://text-proposal");
    expect(stored!.status).toBe(ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD);
    const { proposal: up } = await getProposal(query, { proposalId: upgradeId });
    expect(up!.messages.map((m) => m.typeUrl)).toEqual(["/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade"]);
    const inner = MsgSoftwareUpgrade.decode(up!.messages[0].value);
    expect(inner.authority).toBe(GOV_ADDRESS);
    expect(inner.plan).toMatchObject({ name: "ijs-upgrade", height: 1_000_000n, info: "from InterchainJS" });
  });

  it("votes (direct and amino), and the passed upgrade proposal schedules its plan", async () => {
    const yes = await vote(
      amino,
      validator,
      { proposalId: upgradeId, voter: validator, option: VoteOption.VOTE_OPTION_YES, metadata: "" },
      FEE,
      "",
    );
    const yesTx = await landed(yes);
    expect(yesTx.code, yesTx.rawLog).toBe(0);
    const no = await vote(
      direct,
      validator,
      { proposalId: textId, voter: validator, option: VoteOption.VOTE_OPTION_NO, metadata: "" },
      FEE,
      "",
    );
    const noTx = await landed(no);
    expect(noTx.code, noTx.rawLog).toBe(0);
    const { vote: stored } = await getVote(query, { proposalId: upgradeId, voter: validator });
    expect(stored!.options).toEqual([{ option: VoteOption.VOTE_OPTION_YES, weight: "1.000000000000000000" }]);

    // The voting period ends by block time: poll until the tally is in.
    let status = ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD;
    for (let i = 0; i < 240 && status === ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await getProposal(query, { proposalId: upgradeId })).proposal!.status;
    }
    expect(status).toBe(ProposalStatus.PROPOSAL_STATUS_PASSED);
    expect((await getProposal(query, { proposalId: textId })).proposal!.status).toBe(
      ProposalStatus.PROPOSAL_STATUS_REJECTED,
    );
    const { plan } = await getCurrentPlan(query, {});
    expect(plan).toMatchObject({ name: "ijs-upgrade", height: 1_000_000n, info: "from InterchainJS" });
    // Go's zero time, as gogoproto writes the non-nullable field; a missing one would decode as "now".
    expect(plan!.time.toISOString()).toBe("0001-01-01T00:00:00.000Z");
  });

  it("the event client cannot subscribe: it expects Ethereum-style subscription ids, not CometBFT's", async () => {
    // Node 20 has no global WebSocket (Node 22 has); the library uses the global one.
    globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;
    const events = await createCosmosEventClient(`${rpc.replace(/^http/, "ws")}/websocket`);
    // biome-ignore lint/suspicious/noExplicitAny: the factory hides the socket client it made
    const socket = (events as any).rpcClient;
    await socket.connect();
    try {
      const blocks = events.subscribeToBlocks()[Symbol.asyncIterator]();
      await expect(blocks.next()).rejects.toThrow("Received invalid subscription identifier");
    } finally {
      await socket.disconnect();
    }
  });
});
