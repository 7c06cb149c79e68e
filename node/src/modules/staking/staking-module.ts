import { create, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import { file_sdk_staking_v1beta1_query, Query } from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import {
  file_sdk_staking_v1beta1_staking,
  type GenesisState,
  GenesisStateSchema,
} from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import { file_sdk_staking_v1beta1_tx, Msg } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import type { AppModule } from "../../app/app-module.js";
import type { Context } from "../../app/context.js";
import type { ModuleCliContext, ModuleCommand } from "../../app/module-command.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";
import type { ServiceRegistrar } from "../../app/service-registrar.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { moduleAddress } from "../../crypto/address.js";
import type { AccountKeeper } from "../auth/account-keeper.js";
import type { BankKeeper } from "../bank/bank-keeper.js";
import { STAKING_AMINO_TYPES } from "./staking-amino.js";
import { gentxCommand } from "./staking-cli.js";
import { BONDED_POOL, defaultStakingParams, STAKING_STORE, type StakingKeeper } from "./staking-keeper.js";
import { stakingMsgServer } from "./staking-msg-server.js";
import { stakingQueryServer } from "./staking-query-server.js";

/** Validators and delegations: bonded stake, which governance counts as voting power. */
export class StakingModule implements AppModule {
  readonly name = "staking";
  readonly consensusVersion = 4;
  readonly storeKeys = [STAKING_STORE];
  readonly aminoTypes = STAKING_AMINO_TYPES;
  readonly protoFiles = [
    file_sdk_staking_v1beta1_staking,
    file_sdk_staking_v1beta1_query,
    file_sdk_staking_v1beta1_tx,
  ];

  constructor(
    readonly keeper: StakingKeeper,
    private readonly bank: BankKeeper,
    private readonly accounts: AccountKeeper,
    private readonly types: TypeRegistry,
  ) {}

  defaultGenesis(): JsonValue {
    return toJson(
      GenesisStateSchema,
      create(GenesisStateSchema, { params: defaultStakingParams() }),
      PROTO_JSON_WRITE,
    );
  }

  private parse(state: unknown): GenesisState {
    try {
      return fromJson(GenesisStateSchema, state as JsonValue, { registry: this.types.registry });
    } catch (e) {
      throw new Error(`staking genesis: ${(e as Error).message}`);
    }
  }

  validateGenesis(state: unknown): void {
    const g = this.parse(state);
    for (const v of g.validators)
      this.keeper.valoper.fromString(v.operatorAddress, "genesis validator address");
    for (const d of g.delegations) {
      this.keeper.addresses.fromString(d.delegatorAddress, "genesis delegator address");
      if (!g.validators.some((v) => v.operatorAddress === d.validatorAddress))
        throw new Error(`staking genesis: delegation to unknown validator ${d.validatorAddress}`);
    }
  }

  async initGenesis(ctx: Context, state: unknown): Promise<void> {
    const g = this.parse(state);
    const params = g.params ?? defaultStakingParams();
    this.keeper.setParams(ctx, params);
    let bonded = 0n;
    for (const v of g.validators) {
      this.keeper.setValidator(ctx, v);
      bonded += BigInt(v.tokens || "0");
    }
    await this.keeper.importDelegations(ctx, g.delegations);
    await this.accounts.moduleAccount(ctx, BONDED_POOL, ["burner", "staking"]);
    const pool = await this.bank.getBalance(ctx, moduleAddress(BONDED_POOL), params.bondDenom);
    if (pool !== bonded)
      throw new Error(
        `staking genesis: bonded pool balance is different from bonded coins: ${pool}${params.bondDenom} and ${bonded}${params.bondDenom}`,
      );
  }

  async exportGenesis(ctx: Context): Promise<JsonValue> {
    const validators = [];
    for await (const v of this.keeper.validators(ctx)) validators.push(v);
    const delegations = [];
    for await (const d of this.keeper.allDelegations(ctx)) delegations.push(d);
    const g = create(GenesisStateSchema, {
      params: await this.keeper.getParams(ctx),
      validators,
      delegations,
    });
    return toJson(GenesisStateSchema, g, { ...PROTO_JSON_WRITE, registry: this.types.registry });
  }

  async endBlock(ctx: Context): Promise<void> {
    await this.keeper.completeUnbondings(ctx);
    await this.keeper.completeRedelegations(ctx);
  }

  registerServices(r: ServiceRegistrar): void {
    r.msgService(Msg, stakingMsgServer(this.keeper));
    r.queryService(Query, stakingQueryServer(this.keeper, this.bank));
  }

  genesisCommands(ctx: ModuleCliContext): ModuleCommand[] {
    return [gentxCommand(ctx.types)];
  }
}
