/**
 * Maps that say when they change, and a watch over several that tells a listener whether any
 * of them holds an entry, each time that flips (the write-back's "a close may have work").
 */

/** A Map that calls `changed` after every set, delete (of a present key) or clear. */
export class WatchedMap<K, V> extends Map<K, V> {
  changed: () => void = () => {};
  override set(key: K, value: V): this {
    super.set(key, value);
    this.changed();
    return this;
  }
  override delete(key: K): boolean {
    const had = super.delete(key);
    if (had) this.changed();
    return had;
  }
  override clear(): void {
    super.clear();
    this.changed();
  }
}

/** Whether any of `maps` holds an entry, told to the listener at once and on every flip. */
export class NonEmptyWatch {
  private readonly maps: readonly WatchedMap<unknown, unknown>[];
  private state = false;
  private listener: (nonEmpty: boolean) => void = () => {};

  constructor(maps: readonly WatchedMap<unknown, unknown>[]) {
    this.maps = maps;
    for (const map of maps) map.changed = () => this.check();
  }

  private check(): void {
    const nonEmpty = this.maps.some((map) => map.size > 0);
    if (nonEmpty === this.state) return;
    this.state = nonEmpty;
    this.listener(nonEmpty);
  }

  listen(listener: (nonEmpty: boolean) => void): void {
    this.listener = listener;
    listener(this.state);
  }
}
