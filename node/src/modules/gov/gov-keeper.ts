import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { CoinSchema } from "@chaind/proto/sdk/base/v1beta1/coin_pb";
import {
  type Deposit,
  DepositSchema,
  type Params,
  ParamsSchema,
  type Proposal,
  ProposalSchema,
  type Vote,
  VoteSchema,
} from "@chaind/proto/sdk/gov/v1/gov_pb";
import type { AddressCodec } from "../../app/address-codec.js";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import { formatDec } from "../../app/dec.js";
import { ChainError, type ErrorDef } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";
import { uint64Key } from "../../store/uint-keys.js";
import { utf8Bytes } from "../../store/utf8-bytes.js";
import type { BankKeeper } from "../bank/bank-keeper.js";
import { GovKeys } from "./gov-keys.js";

export const GOV_STORE = "gov";
export const GOV_MODULE = "gov";

const def = (code: number, desc: string, grpc = GrpcCode.INVALID_ARGUMENT): ErrorDef => ({
  codespace: "gov",
  code,
  desc,
  grpc,
});

/** gov's registered errors (Cosmos codes). */
export const GovErrors = {
  UnknownProposal: def(2, "unknown proposal", GrpcCode.NOT_FOUND),
  InactiveProposal: def(3, "inactive proposal"),
  InvalidProposalContent: def(5, "invalid proposal content"),
  InvalidProposalType: def(6, "invalid proposal type"),
  InvalidVote: def(7, "invalid vote option"),
  NoProposalMsgs: def(11, "no messages proposed"),
  InvalidProposalMsg: def(12, "invalid proposal message"),
  InvalidSigner: def(13, "expected gov account as only signer for proposal message"),
  MetadataTooLong: def(15, "metadata too long"),
  MinDepositTooSmall: def(16, "minimum deposit is too small"),
  SummaryTooLong: def(22, "summary too long"),
  NoProposalHandlerExists: def(9, "no handler exists for proposal type"),
  UnroutableProposalMsg: def(10, "proposal message not recognized by router"),
};

export const govError = (d: ErrorDef, detail?: string) => ChainError.wrap(d, detail);

export function defaultGovParams(): Params {
  return create(ParamsSchema, {
    minDeposit: [{ denom: "stake", amount: "10000000" }],
    maxDepositPeriod: durationFromMs(172_800_000),
    votingPeriod: durationFromMs(172_800_000),
    quorum: formatDec(334_000_000_000_000_000n),
    threshold: formatDec(500_000_000_000_000_000n),
    vetoThreshold: formatDec(334_000_000_000_000_000n),
    minInitialDepositRatio: formatDec(0n),
    expeditedVotingPeriod: durationFromMs(86_400_000),
    expeditedThreshold: formatDec(667_000_000_000_000_000n),
    expeditedMinDeposit: [{ denom: "stake", amount: "50000000" }],
    burnVoteQuorum: false,
    burnProposalDepositPrevote: false,
    burnVoteVeto: true,
    minDepositRatio: formatDec(10_000_000_000_000_000n),
  });
}

const queueOf = (which: "active" | "inactive") =>
  which === "active" ? GovKeys.activeQueue : GovKeys.inactiveQueue;

/** Proposals, deposits, votes, params and the two queues EndBlock works through. */
export class GovKeeper {
  constructor(
    readonly addresses: AddressCodec,
    readonly bank: BankKeeper,
  ) {}

  async getParams(ctx: Context): Promise<Params> {
    const v = await ctx.kv(GOV_STORE).get(GovKeys.params);
    return v ? fromBinary(ParamsSchema, v) : defaultGovParams();
  }

  setParams(ctx: Context, p: Params): void {
    ctx.kv(GOV_STORE).set(GovKeys.params, toBinary(ParamsSchema, p));
  }

  async getConstitution(ctx: Context): Promise<string> {
    const v = await ctx.kv(GOV_STORE).get(GovKeys.constitution);
    return v ? new TextDecoder().decode(v) : "";
  }

  setConstitution(ctx: Context, text: string): void {
    if (text === "") ctx.kv(GOV_STORE).delete(GovKeys.constitution);
    else ctx.kv(GOV_STORE).set(GovKeys.constitution, utf8Bytes(text));
  }

  async nextProposalId(ctx: Context): Promise<bigint> {
    const id = await this.peekNextProposalId(ctx);
    ctx.kv(GOV_STORE).set(GovKeys.nextId, uint64Key.encode(id + 1n));
    return id;
  }

  /** The id the next proposal will take, without taking it. */
  async peekNextProposalId(ctx: Context): Promise<bigint> {
    const v = await ctx.kv(GOV_STORE).get(GovKeys.nextId);
    return v ? uint64Key.decode(v) : 1n;
  }

  /** Genesis: a deposit as exported (its coins are already in the gov account). */
  setDeposit(ctx: Context, d: Deposit): void {
    const key = this.depositKey(d.proposalId, this.addresses.fromString(d.depositor, "depositor"));
    ctx.kv(GOV_STORE).set(key, toBinary(DepositSchema, d));
  }

  setNextProposalId(ctx: Context, id: bigint): void {
    ctx.kv(GOV_STORE).set(GovKeys.nextId, uint64Key.encode(id));
  }

  async getProposal(ctx: Context, id: bigint): Promise<Proposal | undefined> {
    const v = await ctx.kv(GOV_STORE).get(GovKeys.proposal.encode(id));
    return v && fromBinary(ProposalSchema, v);
  }

  async mustGetProposal(ctx: Context, id: bigint): Promise<Proposal> {
    const p = await this.getProposal(ctx, id);
    if (!p) throw govError(GovErrors.UnknownProposal, `proposal ${id} doesn't exist`);
    return p;
  }

  setProposal(ctx: Context, p: Proposal): void {
    ctx.kv(GOV_STORE).set(GovKeys.proposal.encode(p.id), toBinary(ProposalSchema, p));
  }

  deleteProposal(ctx: Context, id: bigint): void {
    ctx.kv(GOV_STORE).delete(GovKeys.proposal.encode(id));
  }

  async *proposals(ctx: Context): AsyncIterable<Proposal> {
    for await (const [, v] of ctx.kv(GOV_STORE).iterate({ prefix: GovKeys.proposal.prefix }))
      yield fromBinary(ProposalSchema, v);
  }

  queue(ctx: Context, which: "active" | "inactive", endMs: number, id: bigint, on: boolean): void {
    const key = queueOf(which).encode([endMs, id]);
    if (on) ctx.kv(GOV_STORE).set(key, new Uint8Array());
    else ctx.kv(GOV_STORE).delete(key);
  }

  /** Ids whose period ended at or before `nowMs`, oldest first. */
  async due(
    ctx: Context,
    which: "active" | "inactive",
    nowMs: number,
  ): Promise<{ id: bigint; endMs: number }[]> {
    const queue = queueOf(which);
    const out = [];
    for await (const [k] of ctx.kv(GOV_STORE).iterate({ prefix: queue.prefix })) {
      const [endMs, id] = queue.decode(k);
      if (endMs > nowMs) break;
      out.push({ id, endMs });
    }
    return out;
  }

  private depositKey(id: bigint, depositor: Uint8Array) {
    return GovKeys.deposit.encode([id, depositor]);
  }

  async getDeposit(ctx: Context, id: bigint, depositor: Uint8Array): Promise<Deposit | undefined> {
    const v = await ctx.kv(GOV_STORE).get(this.depositKey(id, depositor));
    return v && fromBinary(DepositSchema, v);
  }

  async *deposits(ctx: Context, id: bigint): AsyncIterable<Deposit> {
    const prefix = GovKeys.deposit.prefixOf(id);
    for await (const [, v] of ctx.kv(GOV_STORE).iterate({ prefix })) yield fromBinary(DepositSchema, v);
  }

  /** Moves coins into the gov account and records them; answers whether this deposit started the vote. */
  async addDeposit(ctx: Context, p: Proposal, depositor: string, amount: Coins): Promise<boolean> {
    const addr = this.addresses.fromString(depositor, "depositor");
    await this.bank.sendCoinsFromAccountToModule(ctx, addr, GOV_MODULE, amount);
    const existing = await this.getDeposit(ctx, p.id, addr);
    const total = Coins.from(existing?.amount ?? []).add(amount);
    ctx
      .kv(GOV_STORE)
      .set(
        this.depositKey(p.id, addr),
        toBinary(
          DepositSchema,
          create(DepositSchema, { proposalId: p.id, depositor, amount: total.toProto() }),
        ),
      );
    p.totalDeposit = Coins.from(p.totalDeposit)
      .add(amount)
      .toProto()
      .map((c) => create(CoinSchema, c));
    ctx.events.emit("proposal_deposit", {
      amount: amount.toString(),
      proposal_id: String(p.id),
      depositor,
    });
    return true;
  }

  /** Refunds (or burns) every deposit of a proposal and forgets them. */
  async settleDeposits(ctx: Context, id: bigint, burn: boolean): Promise<void> {
    const all = [];
    for await (const d of this.deposits(ctx, id)) all.push(d);
    for (const d of all) {
      const coins = Coins.from(d.amount);
      const addr = this.addresses.fromString(d.depositor);
      if (!coins.isEmpty) {
        if (burn) await this.bank.burnCoins(ctx, GOV_MODULE, coins);
        else await this.bank.sendCoinsFromModuleToAccount(ctx, GOV_MODULE, addr, coins);
      }
      ctx.kv(GOV_STORE).delete(this.depositKey(id, addr));
    }
  }

  private voteKey(id: bigint, voter: Uint8Array) {
    return GovKeys.vote.encode([id, voter]);
  }

  async getVote(ctx: Context, id: bigint, voter: Uint8Array): Promise<Vote | undefined> {
    const v = await ctx.kv(GOV_STORE).get(this.voteKey(id, voter));
    return v && fromBinary(VoteSchema, v);
  }

  setVote(ctx: Context, v: Vote): void {
    ctx
      .kv(GOV_STORE)
      .set(this.voteKey(v.proposalId, this.addresses.fromString(v.voter)), toBinary(VoteSchema, v));
  }

  async *votes(ctx: Context, id: bigint): AsyncIterable<Vote> {
    const prefix = GovKeys.vote.prefixOf(id);
    for await (const [, v] of ctx.kv(GOV_STORE).iterate({ prefix })) yield fromBinary(VoteSchema, v);
  }

  deleteVote(ctx: Context, v: Vote): void {
    ctx.kv(GOV_STORE).delete(this.voteKey(v.proposalId, this.addresses.fromString(v.voter)));
  }
}
