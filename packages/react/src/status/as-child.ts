import { cloneElement, isValidElement, type ReactNode } from 'react';

type Props = Record<string, unknown> & { className?: string; style?: object };

/**
 * `asChild`: renders the one child element in place of the component's own element, with the
 * component's props merged under the child's (class names and styles combined). The child's
 * own children win over `content`.
 */
export function renderAsChild(child: ReactNode, props: Props, content: ReactNode): ReactNode {
  if (!isValidElement<Props & { children?: ReactNode }>(child)) return null;
  const own = child.props;
  const className = [props.className, own.className].filter(Boolean).join(' ') || undefined;
  const style =
    props.style === undefined && own.style === undefined
      ? undefined
      : { ...props.style, ...own.style };
  return cloneElement(child, { ...props, ...own, className, style }, own.children ?? content);
}
