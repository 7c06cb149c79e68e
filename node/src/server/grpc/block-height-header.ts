import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import { StoreHeightError } from "../../store/store-errors.js";

/** The request header / gRPC metadata key naming the height a query reads state at, in both namespaces. */
export const BLOCK_HEIGHT_HEADERS = ["x-sdk-block-height", "x-cosmos-block-height"] as const;

/** What a query can learn about retained state: the committed tip and the oldest unpruned height. */
export interface HeightBounds {
  readonly latestHeight: number;
  readonly earliestHeight: number;
}

/**
 * The height a query runs at, from the raw value of the header named `header` (absent or 0 = latest). Each bad value gets its own
 * error with Cosmos's text, as a ChainError of class InvalidArgument so every edge answers it as bad input.
 */
export function queryHeight(
  raw: string | undefined,
  bounds: HeightBounds,
  header: string = BLOCK_HEIGHT_HEADERS[0],
): number {
  const latest = bounds.latestHeight;
  if (raw === undefined || raw.trim() === "") return latest;
  const text = raw.trim();
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw ChainError.wrap(
      SdkErrors.InvalidRequest,
      `invalid height header ${JSON.stringify(header)}: ${JSON.stringify(raw)} is not an integer`,
    );
  const height = Number(text);
  if (height < 0)
    throw ChainError.wrap(
      SdkErrors.InvalidRequest,
      "cannot query with height < 0; please provide a valid height",
    );
  if (height === 0) return latest;
  if (height > latest)
    throw ChainError.wrap(
      SdkErrors.InvalidHeight,
      "cannot query with height in the future; please provide a valid height",
    );
  if (height < bounds.earliestHeight) throw prunedHeightError(height, latest);
  return height;
}

function prunedHeightError(height: number, latest: number): ChainError {
  return ChainError.wrap(
    SdkErrors.InvalidRequest,
    `failed to load state at height ${height}; version does not exist (latest height: ${latest})`,
  );
}

/** Pruning can overtake a query between the check and the read: the store's error then reads the same. */
export function asHeightError(e: unknown, height: number, bounds: HeightBounds): unknown {
  if (e instanceof StoreHeightError && e.code === "PRUNED_HEIGHT")
    return prunedHeightError(height, bounds.latestHeight);
  return e;
}
