/** An ABCI event: a type with string attributes, as CometBFT indexes and clients read them. */
export interface AbciEvent {
  type: string;
  attributes: { key: string; value: string; index: boolean }[];
}

/** Collects the events a tx or a block phase emits, in order. */
export class EventManager {
  readonly events: AbciEvent[] = [];

  emit(type: string, attrs: Record<string, string>): void {
    // A for-in walk: no [key, value] pair arrays for each attribute of each event.
    const attributes: AbciEvent["attributes"] = [];
    for (const key in attrs) attributes.push({ key, value: attrs[key], index: true });
    this.events.push({ type, attributes });
  }

  append(events: readonly AbciEvent[]): void {
    this.events.push(...events);
  }
}
