// Stand-in for ink's optional devtools bridge: the bundle never connects to
// React DevTools, and bundling the real package would pull in a websocket client.
export function initialize() {}
export function connectToDevTools() {}
export default { initialize, connectToDevTools };
