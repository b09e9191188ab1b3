/**
 * Theming from the query string (the platform adds it to the portal URL, before `#`): `primary` (a hex
 * colour), `font` (a CSS font-family list) and `theme` (`light` or `dark`). They set the CSS variables
 * styles.css reads; anything else is ignored.
 */
export function applyTheme(search = location.search): void {
  const params = new URLSearchParams(search);
  const root = document.documentElement;
  const primary = params.get('primary');
  if (primary && /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.test(primary))
    root.style.setProperty('--wharf-primary', primary.startsWith('#') ? primary : `#${primary}`);
  const font = params.get('font');
  if (font && /^[\w\s,'"-]{1,120}$/.test(font)) root.style.setProperty('--wharf-font', font);
  const theme = params.get('theme');
  if (theme === 'dark' || theme === 'light') root.dataset.theme = theme;
}

/** The message a framed console posts to its parent on navigation and when its height changes. */
export interface PortalMessage {
  type: 'wharf:portal';
  event: 'navigate' | 'resize';
  /** The console's route, e.g. `#/webhooks/<uuid>`. */
  route: string;
  /** The document's height in CSS pixels: the frame's height that shows it whole. */
  height: number;
}

/**
 * In a frame, tells the parent page where the console is and how tall it is, so the frame can size itself.
 * Posted to any origin: the message holds a route and a height, nothing of the company's data.
 */
export function reportToParent(): void {
  if (window.parent === window) return;
  let lastHeight = -1;
  const post = (event: PortalMessage['event']) => {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (event === 'resize' && height === lastHeight) return;
    lastHeight = height;
    const route = location.hash.startsWith('#/') ? location.hash : '#/webhooks';
    const message: PortalMessage = { type: 'wharf:portal', event, route, height };
    window.parent.postMessage(message, '*');
  };
  window.addEventListener('hashchange', () => post('navigate'));
  new ResizeObserver(() => post('resize')).observe(document.body);
  post('navigate');
}
