// Original file: proto/gw/ir/v1/traffic.proto

import type { Long } from '@grpc/proto-loader';

export interface BufferLimit {
  /**
   * spec.traffic.buffer.{request,response}.maxBytes (default 2Mi).
   */
  'maxBytes'?: (number | string | Long);
  /**
   * spec.traffic.buffer.{request,response}.failureMode: FailOpen passes an oversize body on unbuffered.
   */
  'failOpen'?: (boolean);
}

export interface BufferLimit__Output {
  /**
   * spec.traffic.buffer.{request,response}.maxBytes (default 2Mi).
   */
  'maxBytes': (string);
  /**
   * spec.traffic.buffer.{request,response}.failureMode: FailOpen passes an oversize body on unbuffered.
   */
  'failOpen': (boolean);
}
