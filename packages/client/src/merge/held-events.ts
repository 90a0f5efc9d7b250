import type { DurableRunEvent } from '@runlight/protocol';

interface Node {
  readonly event: DurableRunEvent;
  readonly left: Node | null;
  readonly right: Node | null;
  readonly height: number;
  readonly size: number;
}

/**
 * Durable events held beyond `revision + 1` (SPEC.md rule 2.3), keyed by revision: an
 * immutable AVL tree, so a state can hold them without copying on every insertion. Insertion,
 * lookup and removal of the lowest are O(log n) with structural sharing — holding 20,000
 * out-of-order events costs 20,000 × log₂ 20,000 node copies, not 20,000² array copies.
 * Every operation returns a new `HeldEvents` (or the same one when nothing changed).
 *
 * @example
 * let held = HeldEvents.empty.insert(event8).insert(event7);
 * held.min?.revision; // 7
 * held = held.withoutMin();
 */
export class HeldEvents implements Iterable<DurableRunEvent> {
  static readonly empty = new HeldEvents(null);
  readonly #root: Node | null;

  private constructor(root: Node | null) {
    this.#root = root;
  }

  /** How many events are held. */
  get size(): number {
    return this.#root?.size ?? 0;
  }

  /**
   * The tree's height: the most nodes an insertion or removal copies. An AVL tree keeps it
   * below 1.45 · log₂(size + 2), whatever the order events arrive in.
   */
  get depth(): number {
    return this.#root?.height ?? 0;
  }

  /** Same as `size` (array-like). */
  get length(): number {
    return this.size;
  }

  /** The held event with the lowest revision, or `undefined`. */
  get min(): DurableRunEvent | undefined {
    let node = this.#root;
    if (node === null) return undefined;
    while (node.left !== null) node = node.left;
    return node.event;
  }

  has(revision: number): boolean {
    let node = this.#root;
    while (node !== null) {
      if (revision === node.event.revision) return true;
      node = revision < node.event.revision ? node.left : node.right;
    }
    return false;
  }

  /** With `event` added; the same object when its revision is already held (first copy wins). */
  insert(event: DurableRunEvent): HeldEvents {
    if (this.has(event.revision)) return this;
    return new HeldEvents(insert(this.#root, event));
  }

  /** Without the lowest revision. */
  withoutMin(): HeldEvents {
    return this.#root === null ? this : new HeldEvents(removeMin(this.#root));
  }

  /** In ascending revision order. */
  *[Symbol.iterator](): Iterator<DurableRunEvent> {
    const stack: Node[] = [];
    let node = this.#root;
    while (node !== null || stack.length > 0) {
      while (node !== null) {
        stack.push(node);
        node = node.left;
      }
      const next = stack.pop()!;
      yield next.event;
      node = next.right;
    }
  }

  toArray(): DurableRunEvent[] {
    return [...this];
  }
}

const height = (node: Node | null) => node?.height ?? 0;
const sizeOf = (node: Node | null) => node?.size ?? 0;

function make(event: DurableRunEvent, left: Node | null, right: Node | null): Node {
  return {
    event,
    left,
    right,
    height: Math.max(height(left), height(right)) + 1,
    size: sizeOf(left) + sizeOf(right) + 1,
  };
}

function balance(event: DurableRunEvent, left: Node | null, right: Node | null): Node {
  const lh = height(left);
  const rh = height(right);
  if (lh > rh + 1) {
    const l = left!;
    if (height(l.left) >= height(l.right)) {
      return make(l.event, l.left, make(event, l.right, right));
    }
    const lr = l.right!;
    return make(lr.event, make(l.event, l.left, lr.left), make(event, lr.right, right));
  }
  if (rh > lh + 1) {
    const r = right!;
    if (height(r.right) >= height(r.left)) {
      return make(r.event, make(event, left, r.left), r.right);
    }
    const rl = r.left!;
    return make(rl.event, make(event, left, rl.left), make(r.event, rl.right, r.right));
  }
  return make(event, left, right);
}

function insert(node: Node | null, event: DurableRunEvent): Node {
  if (node === null) return make(event, null, null);
  return event.revision < node.event.revision
    ? balance(node.event, insert(node.left, event), node.right)
    : balance(node.event, node.left, insert(node.right, event));
}

function removeMin(node: Node): Node | null {
  if (node.left === null) return node.right;
  return balance(node.event, removeMin(node.left), node.right);
}
