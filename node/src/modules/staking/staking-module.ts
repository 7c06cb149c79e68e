import { create, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { PubKeySchema as Ed25519PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { file_sdk_staking_v1beta1_query, Query } from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import {
  BondStatus,
  file_sdk_staking_v1beta1_staking,
  type GenesisState,
  GenesisStateSchema,
} from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import { file_sdk_staking_v1beta1_tx, Msg } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import type { AppModule } from "../../app/app-module.js";
import { Coins } from "../../app/coins.js";
import type { ConsensusValidator } from "../../app/consensus-validators.js";
import type { Context } from "../../app/context.js";
import type { ModuleCliContext, ModuleCommand } from "../../app/module-command.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";
import type { ServiceRegistrar } from "../../app/service-registrar.js";
import {
  TESTNET_OPERATOR_FUNDS,
  TESTNET_SELF_DELEGATION,
  TESTNET_UNBONDING_MS,
  type TestnetConversion,
} from "../../app/testnet-conversion.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { moduleAddress } from "../../crypto/address.js";
import { mapKey } from "../../store/map-key.js";
import type { AccountKeeper } from "../auth/account-keeper.js";
import type { BankKeeper } from "../bank/bank-keeper.js";
import { STAKING_AMINO_TYPES } from "./staking-amino.js";
import { gentxCommand } from "./staking-cli.js";
import {
  BONDED_POOL,
  consensusPower,
  defaultStakingParams,
  NOT_BONDED_POOL,
  STAKING_STORE,
  type StakingKeeper,
} from "./staking-keeper.js";
import { stakingMsgServer } from "./staking-msg-server.js";
import { stakingQueryCommand } from "./staking-query-cli.js";
import { stakingQueryServer } from "./staking-query-server.js";
import { stakingTxCommand } from "./staking-tx-cli.js";

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
    // Operators by bytes: one validator in upper- and lower-case bech32 is one validator.
    const operators = new Set<string>();
    for (const v of g.validators) {
      const id = mapKey(this.keeper.valoper.fromString(v.operatorAddress, "genesis validator address"));
      if (operators.has(id))
        throw new Error(`staking genesis: duplicate validator in genesis state: ${v.operatorAddress}`);
      operators.add(id);
    }
    for (const d of g.delegations) {
      this.keeper.addresses.fromString(d.delegatorAddress, "genesis delegator address");
      if (
        !operators.has(
          mapKey(this.keeper.valoper.fromString(d.validatorAddress, "genesis delegation validator")),
        )
      )
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
    let unbonding = 0n;
    for (const u of g.unbondingDelegations) {
      this.keeper.importUnbonding(ctx, u);
      for (const e of u.entries) unbonding += BigInt(e.balance || "0");
    }
    for (const r of g.redelegations)
      this.keeper.redelegations.import(ctx, r, {
        del: this.keeper.addresses.fromString(r.delegatorAddress, "redelegation delegator address"),
        src: this.keeper.valoper.fromString(r.validatorSrcAddress, "redelegation source validator"),
        dst: this.keeper.valoper.fromString(r.validatorDstAddress, "redelegation destination validator"),
      });
    await this.accounts.moduleAccount(ctx, BONDED_POOL, ["burner", "staking"]);
    // Unbonding stake waits in the not-bonded pool; as in Cosmos, its balance must be exactly what is unbonding.
    const notBonded = await this.bank.getBalance(ctx, moduleAddress(NOT_BONDED_POOL), params.bondDenom);
    if (notBonded !== unbonding)
      throw new Error(
        `staking genesis: not bonded pool balance is different from not bonded coins: ${notBonded}${params.bondDenom} and ${unbonding}${params.bondDenom}`,
      );
    const pool = await this.bank.getBalance(ctx, moduleAddress(BONDED_POOL), params.bondDenom);
    if (pool !== bonded)
      throw new Error(
        `staking genesis: bonded pool balance is different from bonded coins: ${pool}${params.bondDenom} and ${bonded}${params.bondDenom}`,
      );
  }

  /**
   * The operator gets funds (minted, so the supply stays the sum of balances) and becomes the only bonded
   * validator, signing with this node's key; unbonding takes a minute.
   */
  async convertToTestnet(ctx: Context, t: TestnetConversion): Promise<void> {
    const params = await this.keeper.getParams(ctx);
    params.unbondingTime = durationFromMs(TESTNET_UNBONDING_MS);
    this.keeper.setParams(ctx, params);
    const funds = Coins.from([{ denom: params.bondDenom, amount: TESTNET_OPERATOR_FUNDS }]);
    await this.bank.mintCoins(ctx, NOT_BONDED_POOL, funds);
    await this.bank.sendCoinsFromModuleToAccount(ctx, NOT_BONDED_POOL, t.operator, funds);
    await this.keeper.makeSoleValidator(ctx, {
      operator: t.operator,
      pubkey: this.types.pack(Ed25519PubKeySchema, create(Ed25519PubKeySchema, { key: t.validatorPubKey })),
      tokens: TESTNET_SELF_DELEGATION,
    });
  }

  async consensusValidators(ctx: Context): Promise<ConsensusValidator[]> {
    const out: ConsensusValidator[] = [];
    for await (const { pubKey, power } of this.keeper.consensusValidators(ctx)) out.push({ pubKey, power });
    return out;
  }

  async exportGenesis(ctx: Context): Promise<JsonValue> {
    const validators = [];
    let power = 0n;
    for await (const v of this.keeper.validators(ctx)) {
      validators.push(v);
      if (v.status === BondStatus.BONDED) power += consensusPower(v.tokens);
    }
    const delegations = [];
    for await (const d of this.keeper.allDelegations(ctx)) delegations.push(d);
    const unbondingDelegations = [];
    for await (const u of this.keeper.allUnbondings(ctx)) unbondingDelegations.push(u);
    const redelegations = [];
    for await (const r of this.keeper.redelegations.all(ctx)) redelegations.push(r);
    const g = create(GenesisStateSchema, {
      params: await this.keeper.getParams(ctx),
      lastTotalPower: power.toString(),
      validators,
      delegations,
      unbondingDelegations,
      redelegations,
      exported: true,
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

  txCommand(ctx: ModuleCliContext): ModuleCommand {
    return stakingTxCommand(ctx.types);
  }

  queryCommand(ctx: ModuleCliContext): ModuleCommand {
    return stakingQueryCommand(ctx.types);
  }

  genesisCommands(ctx: ModuleCliContext): ModuleCommand[] {
    return [gentxCommand(ctx.types)];
  }
}
