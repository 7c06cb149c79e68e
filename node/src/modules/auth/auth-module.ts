import { create, type JsonValue, toJson } from "@bufbuild/protobuf";
import { file_sdk_auth_v1beta1_auth } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import { type GenesisState, GenesisStateSchema } from "@chaind/proto/sdk/auth/v1beta1/genesis_pb";
import { file_sdk_auth_v1beta1_query, Query } from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import type { AppModule } from "../../app/app-module.js";
import type { Context } from "../../app/context.js";
import type { ModuleCliContext, ModuleCommand } from "../../app/module-command.js";
import { fromProtoJson, PROTO_JSON_WRITE } from "../../app/proto-json.js";
import type { ServiceRegistrar } from "../../app/service-registrar.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { mapKey } from "../../store/map-key.js";
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
      // Any type URLs as stored (`/sdk.crypto.secp256k1.PubKey`), not protojson's `type.googleapis.com/…`: an
      // exported account's public key then reads back as it was.
      return fromProtoJson(GenesisStateSchema, state as JsonValue, this.types);
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
      // By bytes: upper- and lower-case bech32 of one address name one account.
      const id = mapKey(this.keeper.addresses.fromString(addr, "genesis account address"));
      if (seen.has(id))
        throw new Error(`auth genesis: duplicate account found in genesis state; address: ${addr}`);
      seen.add(id);
    }
    if ((g.params?.txSigLimit ?? 1n) === 0n) throw new Error("auth genesis: invalid tx signature limit: 0");
  }

  async initGenesis(ctx: Context, state: unknown): Promise<void> {
    const g = this.parse(state);
    this.keeper.setParams(ctx, g.params ?? defaultAuthParams());
    // Accounts keep their numbers, as in Cosmos, so a chain started from an export answers as the old one did;
    // a number already taken (a hand-written genesis leaves them all 0) becomes the next free one, in file order.
    const accounts = g.accounts
      .map((any) => this.keeper.fromAny(any))
      .sort((a, b) => Number(a.base.accountNumber - b.base.accountNumber));
    let next = 0n;
    for (const acc of accounts) {
      if (acc.base.accountNumber < next) acc.base.accountNumber = next;
      next = acc.base.accountNumber + 1n;
      this.keeper.setAccount(ctx, acc);
    }
    this.keeper.setNextAccountNumber(ctx, next);
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
