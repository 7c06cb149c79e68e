/**
 * A Map that forgets its oldest entry once it holds `capacity`: the caches of answers that are pure functions of
 * their key (address texts, verified signatures), where an evicted entry only costs its recomputation.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.capacity && !this.entries.has(key))
      this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
