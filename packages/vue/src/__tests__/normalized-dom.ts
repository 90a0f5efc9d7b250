/** An element as assistive technology and style hooks see it: tag, attributes, text. */
export interface NormalizedNode {
  tag: string;
  attributes: Record<string, string>;
  children: (NormalizedNode | string)[];
}

/**
 * The element tree with attributes sorted (the inline style as the browser reads it), text
 * nodes joined and trimmed-empty ones and comments (Vue's placeholders) left out: what two
 * bindings must agree on, whatever order their renderers write attributes in.
 */
export function normalized(element: Element): NormalizedNode {
  const attributes: Record<string, string> = {};
  for (const name of element.getAttributeNames().sort()) {
    attributes[name] =
      name === 'style' ? (element as HTMLElement).style.cssText : element.getAttribute(name)!;
  }
  const children: (NormalizedNode | string)[] = [];
  for (const child of element.childNodes) {
    if (child.nodeType === child.ELEMENT_NODE) children.push(normalized(child as Element));
    else if (child.nodeType === child.TEXT_NODE && child.textContent !== '') {
      const last = children.at(-1);
      if (typeof last === 'string') children[children.length - 1] = last + child.textContent;
      else children.push(child.textContent ?? '');
    }
  }
  return { tag: element.tagName.toLowerCase(), attributes, children };
}
