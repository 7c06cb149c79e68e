import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { cometAddress } from "@chaind/core/comet-address";
import {
  GetBlockByHeightResponseSchema,
  GetLatestBlockResponseSchema,
  GetLatestValidatorSetResponseSchema,
  GetNodeInfoResponseSchema,
  GetSyncingResponseSchema,
  Service,
} from "@chaind/proto/sdk/base/tendermint/v1beta1/query_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import type { Block } from "@chaind/proto/tendermint/types/block_pb";
import type { BlockID } from "@chaind/proto/tendermint/types/types_pb";
import { AddressCodec } from "../app/address-codec.js";
import type { App } from "../app/app.js";
import type { ServiceRegistrar } from "../app/service-registrar.js";
import type { BlockStore } from "../consensus/block-store.js";
import { COMET_PROTOCOL, COMET_VERSION } from "../consensus/comet-version.js";
import type { WeightedValidator } from "../consensus/validator-set-hash.js";
import type { ValidatorSigner } from "../consensus/validator-signer.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { COSMOS_SDK_VERSION } from "./cosmos-sdk-version.js";
import { sdkBlock } from "./sdk-block.js";

/**
 * Where the service finds blocks and validators: the embedded engine's block store and its one validator
 * (embeddedTendermintBackend), or CometBFT's RPC (comet-tendermint-backend.ts).
 */
export interface TendermintBackend {
  latestHeight(): Promise<number>;
  block(height: number): Promise<{ blockId: BlockID; block: Block } | undefined>;
  /** The validator set at the latest height. */
  validators(): Promise<{ height: number; validators: WeightedValidator[] }>;
  syncing(): Promise<boolean>;
}

/** What the service reports on: the backend, and how the node presents itself. */
export interface TendermintServiceDeps {
  app: App;
  backend: TendermintBackend;
  addresses: AddressCodec;
  chainId: string;
  moniker: string;
  /** config.toml's `rpc.laddr`, as node info reports it. */
  rpcAddress: string;
  nodeId: string;
}

/** The embedded engine's: its block store, and its one validator with its voting power. */
export function embeddedTendermintBackend(deps: {
  blocks: BlockStore;
  signer: ValidatorSigner;
  votingPower(): bigint;
}): TendermintBackend {
  const { blocks, signer } = deps;
  return {
    latestHeight: async () => blocks.height,
    block: async (height) => {
      const [block, meta] = await Promise.all([blocks.block(height), blocks.meta(height)]);
      return block && meta?.blockId ? { blockId: meta.blockId, block } : undefined;
    },
    validators: async () => ({
      height: blocks.height,
      validators: [{ pubKey: signer.pubKey, votingPower: deps.votingPower() }],
    }),
    syncing: async () => false,
  };
}

/** `sdk.base.tendermint.v1beta1.Service`: node info, sync state, blocks and the validator set. */
export function registerTendermintService(registrar: ServiceRegistrar, deps: TendermintServiceDeps): void {
  const { app, backend, addresses } = deps;
  const valcons = new AddressCodec(`${addresses.prefix}valcons`);
  const blockAt = async (height: number) => {
    const found = await backend.block(height);
    if (!found)
      throw ChainError.wrap(
        SdkErrors.InvalidRequest,
        `requested block height ${height} is bigger then the chain length ${await backend.latestHeight()}`,
      );
    return { ...found, sdkBlock: sdkBlock(found.block, valcons) };
  };
  registrar.queryService(Service, {
    getNodeInfo: async () =>
      create(GetNodeInfoResponseSchema, {
        defaultNodeInfo: {
          protocolVersion: {
            p2p: BigInt(COMET_PROTOCOL.p2p),
            block: BigInt(COMET_PROTOCOL.block),
            app: BigInt(app.info().appVersion),
          },
          defaultNodeId: deps.nodeId,
          listenAddr: deps.rpcAddress,
          network: deps.chainId,
          version: COMET_VERSION,
          moniker: deps.moniker,
          other: { txIndex: "on", rpcAddress: deps.rpcAddress },
        },
        applicationVersion: {
          name: app.opts.name,
          appName: app.opts.name,
          version: app.opts.version,
          goVersion: `node ${process.version}`,
          cosmosSdkVersion: COSMOS_SDK_VERSION,
        },
      }),
    getSyncing: async () => create(GetSyncingResponseSchema, { syncing: await backend.syncing() }),
    getLatestBlock: async () =>
      create(GetLatestBlockResponseSchema, await blockAt(await backend.latestHeight())),
    getBlockByHeight: async (_ctx, req) => {
      if (req.height <= 0n)
        throw ChainError.wrap(SdkErrors.InvalidRequest, "block height must be greater than 0");
      return create(GetBlockByHeightResponseSchema, await blockAt(Number(req.height)));
    },
    getLatestValidatorSet: async () => {
      const set = await backend.validators();
      return create(GetLatestValidatorSetResponseSchema, {
        blockHeight: BigInt(set.height),
        validators: set.validators.map((v) => ({
          address: valcons.toString(cometAddress(v.pubKey)),
          pubKey: create(AnySchema, {
            typeUrl: "/sdk.crypto.ed25519.PubKey",
            value: toBinary(PubKeySchema, create(PubKeySchema, { key: v.pubKey })),
          }),
          votingPower: v.votingPower,
          proposerPriority: 0n,
        })),
        pagination: { nextKey: new Uint8Array(), total: BigInt(set.validators.length) },
      });
    },
  });
}
