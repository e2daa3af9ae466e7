#!/usr/bin/env python3
"""Writes a small Nsight Systems-shaped SQLite export (the tables and columns grainscope's reader
reads: a thread's CUDA calls and NVTX ranges, a kernel and a copy on a stream, a synchronisation):
the fuzz target's seed (fuzz/make_corpus.sh).  usage: nsight_seed.py OUT.sqlite"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
tid = 42 * 16777216 + 43
db.executescript(f"""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'cudaMemcpyAsync'), (3, 'cudaStreamSynchronize'),
  (4, 'step'), (5, 'worker'), (6, 'MPI_Send');
CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (5, 0, {tid});
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 120, 1, {tid}, 7, 1, 0, NULL), (121, 125, 1, {tid}, 8, 2, 0, NULL),
  (130, 400, 1, {tid}, 9, 3, 0, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (110, 300, 0, 1, 13, 7, {42 * 16777216}, 4, 4);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, deprecatedSrcId INTEGER,
  srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (300, 390, 0, 1, 13, 8, {42 * 16777216}, 4096, 2, NULL, 2, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (130, 400, 0, 1, 13, 9, {42 * 16777216}, 3, NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER,
  color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER);
INSERT INTO NVTX_EVENTS VALUES (90, 500, 59, NULL, NULL, NULL, 'iteration', {tid}, NULL, NULL),
  (450, 480, 59, NULL, NULL, NULL, NULL, {tid}, NULL, 6), (420, NULL, 34, NULL, NULL, NULL, 'converged', {tid}, NULL, NULL);
""")
db.commit()
db.close()
