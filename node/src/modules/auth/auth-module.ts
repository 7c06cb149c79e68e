import { create, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import { file_sdk_auth_v1beta1_auth } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import { type GenesisState, GenesisStateSchema } from "@chaind/proto/sdk/auth/v1beta1/genesis_pb";
import { file_sdk_auth_v1beta1_query, Query } from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import type { AppModule } from "../../app/app-module.js";
import type { Context } from "../../app/context.js";
import type { ModuleCliContext, ModuleCommand } from "../../app/module-command.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";
import type { ServiceRegistrar } from "../../app/service-registrar.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { type AccountKeeper, AUTH_STORE, defaultAuthParams } from "./account-keeper.js";
import { FEE_COLLECTOR } from "./ante-handler.js";
import { AUTH_AMINO_TYPES } from "./auth-amino.js";
import { authQueryCommand } from "./auth-cli.js";
import { authQueryServer } from "./auth-query-server.js";

/** Accounts and their numbers, sequences and public keys. */
export class AuthModule implements AppModule {
  readonly name = "auth";
  readonly consensusVersion = 5;
  readonly storeKeys = [AUTH_STORE];
  readonly aminoTypes = AUTH_AMINO_TYPES;
  readonly protoFiles = [file_sdk_auth_v1beta1_auth, file_sdk_auth_v1beta1_query];

  constructor(
    readonly keeper: AccountKeeper,
    private readonly types: TypeRegistry,
    /** Module accounts the app knows of, for the ModuleAccounts query. */
    private readonly moduleAccountNames: () => string[],
  ) {}

  defaultGenesis(): JsonValue {
    return toJson(GenesisStateSchema, create(GenesisStateSchema, { params: defaultAuthParams() }), {
      ...PROTO_JSON_WRITE,
      registry: this.types.registry,
    });
  }

  private parse(state: unknown): GenesisState {
    try {
      return fromJson(GenesisStateSchema, state as JsonValue, { registry: this.types.registry });
    } catch (e) {
      throw new Error(`auth genesis: ${(e as Error).message}`);
    }
  }

  validateGenesis(state: unknown): void {
    const g = this.parse(state);
    const seen = new Set<string>();
    for (const any of g.accounts) {
      const acc = this.keeper.fromAny(any);
      const addr = acc.base.address;
      this.keeper.addresses.fromString(addr, "genesis account address");
      if (seen.has(addr))
        throw new Error(`auth genesis: duplicate account found in genesis state; address: ${addr}`);
      seen.add(addr);
    }
    if ((g.params?.txSigLimit ?? 1n) === 0n) throw new Error("auth genesis: invalid tx signature limit: 0");
  }

  async initGenesis(ctx: Context, state: unknown): Promise<void> {
    const g = this.parse(state);
    this.keeper.setParams(ctx, g.params ?? defaultAuthParams());
    for (const any of g.accounts) {
      const acc = this.keeper.fromAny(any);
      // Account numbers are reassigned in order, as Cosmos does, so a hand-written genesis cannot collide.
      acc.base.accountNumber = await this.keeper.nextAccountNumber(ctx);
      this.keeper.setAccount(ctx, acc);
    }
    // As Cosmos' auth genesis: the fee collector exists from the start, so the first tx's fee does not pay for
    // creating it (and fee-less gas simulation does not undershoot).
    await this.keeper.moduleAccount(ctx, FEE_COLLECTOR);
  }

  async exportGenesis(ctx: Context): Promise<JsonValue> {
    const accounts = [];
    for await (const acc of this.keeper.iterateAccounts(ctx)) accounts.push(this.keeper.packAccount(acc));
    const g = create(GenesisStateSchema, { params: await this.keeper.getParams(ctx), accounts });
    return toJson(GenesisStateSchema, g, { ...PROTO_JSON_WRITE, registry: this.types.registry });
  }

  registerServices(r: ServiceRegistrar): void {
    r.queryService(Query, authQueryServer(this.keeper, this.moduleAccountNames));
  }

  queryCommand(ctx: ModuleCliContext): ModuleCommand {
    return authQueryCommand(ctx.types);
  }
}
