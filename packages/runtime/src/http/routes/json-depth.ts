/**
 * `true` when `value` (parsed JSON) nests arrays and objects deeper than `maxDepth`. Walks with
 * its own stack, so a value of any depth is measured without recursion.
 *
 * @example
 * jsonDepthExceeds(JSON.parse('[[[]]]'), 2); // true: three levels
 */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    const depth = item.depth + 1;
    if (depth > maxDepth) return true;
    const children = Array.isArray(item.value) ? item.value : Object.values(item.value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth });
    }
  }
  return false;
}
