// Lets a browser test (or the devtools console) drive the app's real store: `window.wharfApp.store`.
export function initialize(appInstance) {
  globalThis.wharfApp = {
    store: appInstance.lookup('service:store'),
    wharf: appInstance.lookup('service:wharf'),
  };
}

export default { initialize };
