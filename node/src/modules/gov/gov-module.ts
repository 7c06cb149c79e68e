import { create, fromJson, type JsonObject, type JsonValue, toJson } from "@bufbuild/protobuf";
import { durationFromMs, timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  file_sdk_gov_v1_gov,
  type GenesisState,
  GenesisStateSchema,
  type Proposal,
  ProposalSchema,
  ProposalStatus,
} from "@chaind/proto/sdk/gov/v1/gov_pb";
import { file_sdk_gov_v1_query, Query } from "@chaind/proto/sdk/gov/v1/query_pb";
import { file_sdk_gov_v1_tx, Msg } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { file_sdk_gov_v1beta1_gov } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import { file_sdk_gov_v1beta1_query, Query as LegacyQuery } from "@chaind/proto/sdk/gov/v1beta1/query_pb";
import { file_sdk_gov_v1beta1_tx, Msg as LegacyMsg } from "@chaind/proto/sdk/gov/v1beta1/tx_pb";
import type { AppModule } from "../../app/app-module.js";
import type { Context } from "../../app/context.js";
import { EventManager } from "../../app/events.js";
import type { ModuleCliContext, ModuleCommand } from "../../app/module-command.js";
import { fromProtoJson, PROTO_JSON_WRITE, toProtoJson } from "../../app/proto-json.js";
import type { ServiceRegistrar } from "../../app/service-registrar.js";
import { TESTNET_VOTING_PERIOD_MS, type TestnetConversion } from "../../app/testnet-conversion.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { toChainError } from "../../errors/chain-error.js";
import { CacheMultiStore } from "../../store/cache-multi-store.js";
import type { AccountKeeper } from "../auth/account-keeper.js";
import type { StakingKeeper } from "../staking/staking-keeper.js";
import { GOV_V1_AMINO_TYPES } from "./gov-amino.js";
import { govQueryCommand, govTxCommand } from "./gov-cli.js";
import { defaultGovParams, GOV_MODULE, GOV_STORE, type GovKeeper } from "./gov-keeper.js";
import { govLegacyMsgServer } from "./gov-legacy-msg-server.js";
import { govLegacyQueryServer } from "./gov-legacy-query-server.js";
import { govLegacyMsgChecks, govMsgChecks } from "./gov-msg-checks.js";
import { govMsgServer } from "./gov-msg-server.js";
import { govQueryServer } from "./gov-query-server.js";
import { type BondedValidators, bondedValidators, tallyProposal } from "./gov-tally.js";
import { GOV_V1BETA1_AMINO_TYPES } from "./gov-v1beta1-amino.js";
import { checkExpeditedParams, checkMinDepositRatio, proposalRules } from "./proposal-rules.js";

/**
 * Governance v1 (and v1beta1 over the same state): proposals carry messages that run with the gov account as their signer once the bonded
 * stake votes them through. EndBlock drops proposals whose deposit period ran out and tallies those whose
 * voting period ended.
 */
export class GovModule implements AppModule {
  readonly name = "gov";
  readonly consensusVersion = 5;
  readonly storeKeys = [GOV_STORE];
  readonly aminoTypes = [...GOV_V1_AMINO_TYPES, ...GOV_V1BETA1_AMINO_TYPES];
  readonly protoFiles = [
    file_sdk_gov_v1_gov,
    file_sdk_gov_v1_query,
    file_sdk_gov_v1_tx,
    file_sdk_gov_v1beta1_gov,
    file_sdk_gov_v1beta1_query,
    file_sdk_gov_v1beta1_tx,
  ];
  private registrar: ServiceRegistrar | null = null;

  constructor(
    readonly keeper: GovKeeper,
    private readonly staking: StakingKeeper,
    private readonly accounts: AccountKeeper,
    private readonly types: TypeRegistry,
    private readonly authority: string,
  ) {}

  defaultGenesis(): JsonValue {
    return toJson(
      GenesisStateSchema,
      create(GenesisStateSchema, { startingProposalId: 1n, params: defaultGovParams() }),
      PROTO_JSON_WRITE,
    );
  }

  private parse(state: unknown): GenesisState {
    try {
      // Each proposal keeps the namespace (`/sdk.` or `/cosmos.`) its messages were submitted in, as stored.
      const { proposals, ...rest } = (state ?? {}) as { proposals?: JsonValue[] };
      const g = fromJson(GenesisStateSchema, rest as JsonValue, { registry: this.types.registry });
      g.proposals = (proposals ?? []).map((p) => fromProtoJson(ProposalSchema, p, this.types));
      return g;
    } catch (e) {
      throw new Error(`gov genesis: ${(e as Error).message}`);
    }
  }

  validateGenesis(state: unknown): void {
    const g = this.parse(state);
    if (g.params && !g.params.votingPeriod) throw new Error("gov genesis: voting_period must be set");
    if (g.params) {
      checkExpeditedParams(g.params);
      checkMinDepositRatio(g.params);
    }
  }

  async initGenesis(ctx: Context, state: unknown): Promise<void> {
    const g = this.parse(state);
    this.keeper.setParams(ctx, g.params ?? defaultGovParams());
    this.keeper.setNextProposalId(ctx, g.startingProposalId || 1n);
    this.keeper.setConstitution(ctx, g.constitution);
    await this.accounts.moduleAccount(ctx, GOV_MODULE, ["burner"]);
    // Proposals go back into the queue of the period they are in, as Cosmos' gov genesis does.
    for (const p of g.proposals) {
      this.keeper.setProposal(ctx, p);
      if (p.status === ProposalStatus.DEPOSIT_PERIOD && p.depositEndTime)
        this.keeper.queue(ctx, "inactive", timestampDate(p.depositEndTime).getTime(), p.id, true);
      if (p.status === ProposalStatus.VOTING_PERIOD && p.votingEndTime)
        this.keeper.queue(ctx, "active", timestampDate(p.votingEndTime).getTime(), p.id, true);
    }
    for (const d of g.deposits) this.keeper.setDeposit(ctx, d);
    for (const v of g.votes) this.keeper.setVote(ctx, v);
  }

  async exportGenesis(ctx: Context): Promise<JsonValue> {
    const proposals = [];
    const deposits = [];
    const votes = [];
    for await (const p of this.keeper.proposals(ctx)) {
      proposals.push(p);
      for await (const d of this.keeper.deposits(ctx, p.id)) deposits.push(d);
      for await (const v of this.keeper.votes(ctx, p.id)) votes.push(v);
    }
    const g = create(GenesisStateSchema, {
      startingProposalId: await this.keeper.peekNextProposalId(ctx),
      deposits,
      votes,
      params: await this.keeper.getParams(ctx),
      constitution: await this.keeper.getConstitution(ctx),
    });
    const json = toJson(GenesisStateSchema, g, {
      ...PROTO_JSON_WRITE,
      registry: this.types.registry,
    }) as JsonObject;
    json.proposals = proposals.map((p) => toProtoJson(ProposalSchema, p, this.types));
    return json;
  }

  /** Short voting periods, so the testnet's operator sees a proposal pass within a minute. */
  async convertToTestnet(ctx: Context, _t: TestnetConversion): Promise<void> {
    const params = await this.keeper.getParams(ctx);
    params.votingPeriod = durationFromMs(TESTNET_VOTING_PERIOD_MS);
    // Expedited voting must stay shorter than regular voting.
    params.expeditedVotingPeriod = durationFromMs(TESTNET_VOTING_PERIOD_MS / 2);
    this.keeper.setParams(ctx, params);
  }

  registerServices(r: ServiceRegistrar): void {
    this.registrar = r;
    const msgs = govMsgServer(this.keeper, {
      types: this.types,
      registrar: () => r,
      authority: this.authority,
    });
    const queries = govQueryServer(this.keeper, this.staking);
    r.msgService(Msg, msgs, govMsgChecks());
    r.queryService(Query, queries);
    // v1beta1 as Cosmos SDK 0.50 keeps it: the same state, through the v1 servers.
    r.msgService(
      LegacyMsg,
      govLegacyMsgServer(msgs, { types: this.types, authority: this.authority }),
      govLegacyMsgChecks(this.types),
    );
    r.queryService(LegacyQuery, govLegacyQueryServer(queries, this.types));
  }

  txCommand(ctx: ModuleCliContext): ModuleCommand {
    return govTxCommand(ctx.types);
  }

  queryCommand(ctx: ModuleCliContext): ModuleCommand {
    return govQueryCommand(ctx.types);
  }

  async endBlock(ctx: Context): Promise<void> {
    const now = ctx.block.time.getTime();
    const params = await this.keeper.getParams(ctx);
    for (const { id, endMs } of await this.keeper.due(ctx, "inactive", now)) {
      this.keeper.queue(ctx, "inactive", endMs, id, false);
      await this.keeper.settleDeposits(ctx, id, params.burnProposalDepositPrevote);
      this.keeper.deleteProposal(ctx, id);
      ctx.events.emit("inactive_proposal", { proposal_id: String(id), proposal_result: "proposal_dropped" });
    }
    // Read once for every tally of the block, and again only after a passed proposal's messages ran (they may
    // have changed the validators): one pass over the validators a block, not one a proposal.
    let bonded: BondedValidators | undefined;
    for (const { id, endMs } of await this.keeper.due(ctx, "active", now)) {
      this.keeper.queue(ctx, "active", endMs, id, false);
      const p = await this.keeper.getProposal(ctx, id);
      if (!p) continue;
      const { threshold } = proposalRules(params, p.expedited);
      bonded ??= await bondedValidators(ctx, this.staking);
      const rules = { ...params, threshold };
      const outcome = await tallyProposal(ctx, this.keeper, this.staking, id, rules, true, bonded);
      if (p.expedited && !outcome.passes) {
        // As Cosmos: a failed expedited vote becomes a regular one, from the same start, tallied again at
        // its end by the regular rules; the deposits stay until then. The votes were counted (and cleared).
        p.expedited = false;
        const end = timestampDate(p.votingStartTime!).getTime() + proposalRules(params, false).votingPeriodMs;
        p.votingEndTime = timestampFromDate(new Date(end));
        p.finalTallyResult = outcome.tally;
        this.keeper.queue(ctx, "active", end, id, true);
        this.keeper.setProposal(ctx, p);
        ctx.events.emit("active_proposal", {
          proposal_id: String(id),
          proposal_result: "expedited_proposal_rejected",
        });
        ctx.logger.info("expedited proposal converted to regular", { proposal: String(id) });
        continue;
      }
      await this.keeper.settleDeposits(ctx, id, outcome.burnDeposits);
      let result = "proposal_rejected";
      p.status = ProposalStatus.REJECTED;
      if (outcome.passes) {
        const failure = await this.execute(ctx, p.messages);
        if (failure === null) {
          bonded = undefined;
          p.status = ProposalStatus.PASSED;
          result = "proposal_passed";
        } else {
          p.status = ProposalStatus.FAILED;
          p.failedReason = failure;
          result = "proposal_failed";
        }
      }
      p.finalTallyResult = outcome.tally;
      this.keeper.setProposal(ctx, p);
      ctx.events.emit("active_proposal", { proposal_id: String(id), proposal_result: result });
      // Plain counts: a message object would log its internals ($typeName) instead of the tally.
      const { yesCount, abstainCount, noCount, noWithVetoCount } = outcome.tally;
      ctx.logger.info("proposal tallied", {
        proposal: String(id),
        result,
        yes: yesCount,
        abstain: abstainCount,
        no: noCount,
        no_with_veto: noWithVetoCount,
      });
    }
  }

  /** Runs a passed proposal's messages with the gov account as signer: all of them or none. */
  private async execute(ctx: Context, messages: Proposal["messages"]): Promise<string | null> {
    const branch = new CacheMultiStore(ctx.ms);
    const events = new EventManager();
    try {
      for (const any of messages) {
        const { desc, message } = this.types.unpack(any);
        const route = this.registrar?.msgs.get(desc.typeName);
        if (!route) throw new Error(`proposal message not recognized by router: ${any.typeUrl}`);
        await route.handler(ctx.with({ ms: branch, events }), message);
      }
    } catch (e) {
      return toChainError(e).message;
    }
    branch.write();
    ctx.events.append(events.events);
    return null;
  }
}
