// The data plane's CEL environment lives in src/cel so the translator can compile GwPolicy expressions
// exactly as the proxy will (status reports what the proxy would refuse); the proxy keeps importing it here.
export * from '../../../cel/data-plane.js';
