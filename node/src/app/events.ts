/** An ABCI event: a type with string attributes, as CometBFT indexes and clients read them. */
export interface AbciEvent {
  type: string;
  attributes: { key: string; value: string; index: boolean }[];
}

/** Collects the events a tx or a block phase emits, in order. */
export class EventManager {
  readonly events: AbciEvent[] = [];

  emit(type: string, attrs: Record<string, string>): void {
    this.events.push({
      type,
      attributes: Object.entries(attrs).map(([key, value]) => ({ key, value, index: true })),
    });
  }

  append(events: readonly AbciEvent[]): void {
    this.events.push(...events);
  }
}
