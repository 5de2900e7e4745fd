// client-node's exec/attach/port-forward (WebSockets) and cp (tar); the functions only make REST calls.
import { unsupported } from './unsupported';

export default class WebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  constructor() {
    unsupported('Kubernetes exec/attach/port-forward (ws)');
  }
}
