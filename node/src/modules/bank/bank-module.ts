import { create, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import { file_sdk_bank_v1beta1_bank } from "@chaind/proto/sdk/bank/v1beta1/bank_pb";
import { type GenesisState, GenesisStateSchema } from "@chaind/proto/sdk/bank/v1beta1/genesis_pb";
import { file_sdk_bank_v1beta1_query, Query } from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { file_sdk_bank_v1beta1_tx, Msg } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import type { AppModule } from "../../app/app-module.js";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import type { ModuleCliContext, ModuleCommand } from "../../app/module-command.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";
import type { ServiceRegistrar } from "../../app/service-registrar.js";
import { mapKey } from "../../store/map-key.js";
import type { AccountKeeper } from "../auth/account-keeper.js";
import { BANK_AMINO_TYPES } from "./bank-amino.js";
import { bankQueryCommand, bankTxCommand } from "./bank-cli.js";
import { BANK_STORE, type BankKeeper, defaultBankParams } from "./bank-keeper.js";
import { bankMsgServer } from "./bank-msg-server.js";
import { bankQueryServer } from "./bank-query-server.js";
import { validateDenomMetadata } from "./denom-metadata.js";

/** Balances, sends and supply. */
export class BankModule implements AppModule {
  readonly name = "bank";
  readonly consensusVersion = 4;
  readonly storeKeys = [BANK_STORE];
  readonly aminoTypes = BANK_AMINO_TYPES;
  readonly protoFiles = [file_sdk_bank_v1beta1_bank, file_sdk_bank_v1beta1_query, file_sdk_bank_v1beta1_tx];

  constructor(
    readonly keeper: BankKeeper,
    private readonly accounts: AccountKeeper,
    private readonly opts: { blocked: Set<string>; authority: string },
  ) {}

  defaultGenesis(): JsonValue {
    return toJson(
      GenesisStateSchema,
      create(GenesisStateSchema, { params: defaultBankParams() }),
      PROTO_JSON_WRITE,
    );
  }

  private parse(state: unknown): GenesisState {
    try {
      return fromJson(GenesisStateSchema, state as JsonValue);
    } catch (e) {
      throw new Error(`bank genesis: ${(e as Error).message}`);
    }
  }

  validateGenesis(state: unknown): void {
    const g = this.parse(state);
    const seen = new Set<string>();
    let total = Coins.empty();
    for (const b of g.balances) {
      // By bytes: the same account in upper- and lower-case bech32 is one account, whose store keeps one balance.
      const id = mapKey(this.accounts.addresses.fromString(b.address, "genesis balance address"));
      if (seen.has(id)) throw new Error(`bank genesis: duplicate balance for address ${b.address}`);
      seen.add(id);
      try {
        total = total.add(Coins.from(b.coins));
      } catch (e) {
        throw new Error(`bank genesis: balance of ${b.address}: ${(e as Error).message}`);
      }
    }
    const bases = new Set<string>();
    for (const m of g.denomMetadata) {
      if (bases.has(m.base)) throw new Error(`bank genesis: duplicate client metadata for denom ${m.base}`);
      bases.add(m.base);
      try {
        validateDenomMetadata(m);
      } catch (e) {
        throw new Error(`bank genesis: denom metadata of ${m.base}: ${(e as Error).message}`);
      }
    }
    if (g.supply.length > 0) {
      const declared = Coins.from(g.supply);
      if (declared.toString() !== total.toString()) {
        throw new Error(`bank genesis: genesis supply is incorrect, expected ${declared} got ${total}`);
      }
    }
  }

  async initGenesis(ctx: Context, state: unknown): Promise<void> {
    const g = this.parse(state);
    this.keeper.setParams(ctx, g.params ?? defaultBankParams());
    const balances = g.balances.map((b) => ({
      addr: this.accounts.addresses.fromString(b.address),
      coins: Coins.from(b.coins),
    }));
    await this.keeper.initBalances(ctx, balances);
    for (const m of g.denomMetadata) this.keeper.setDenomMetadata(ctx, m);
  }

  async exportGenesis(ctx: Context): Promise<JsonValue> {
    const balances = [];
    let supply = Coins.empty();
    for await (const acc of this.accounts.iterateAccounts(ctx)) {
      const coins = await this.keeper.getAllBalances(
        ctx,
        this.accounts.addresses.fromString(acc.base.address),
      );
      if (coins.isEmpty) continue;
      balances.push({ address: acc.base.address, coins: coins.toProto() });
      supply = supply.add(coins);
    }
    const denomMetadata = [];
    for await (const m of this.keeper.iterateDenomMetadata(ctx)) denomMetadata.push(m);
    const g = create(GenesisStateSchema, {
      params: await this.keeper.getParams(ctx),
      balances,
      supply: supply.toProto(),
      denomMetadata,
    });
    return toJson(GenesisStateSchema, g, PROTO_JSON_WRITE);
  }

  registerServices(r: ServiceRegistrar): void {
    r.msgService(Msg, bankMsgServer(this.keeper, this.accounts, this.opts));
    r.queryService(Query, bankQueryServer(this.keeper, this.accounts));
  }

  txCommand(ctx: ModuleCliContext): ModuleCommand {
    return bankTxCommand(ctx.types);
  }

  queryCommand(ctx: ModuleCliContext): ModuleCommand {
    return bankQueryCommand(ctx.types);
  }
}
