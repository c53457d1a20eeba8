/* fleetkeys: the keys of the check report that the fleet fingerprint leaves
 * out and `diff` does not compare (data/fleet_keys.tsv), by their pattern:
 * the dotted path with "[]" for an array element ("gpus[].uuid"). The table
 * is read on first use into static storage (not thread-safe); a missing
 * table leaves every key in (FLEETKEY_KEEP). */
#ifndef CD_FLEETKEYS_H
#define CD_FLEETKEYS_H

enum fleetkey_kind {
	FLEETKEY_KEEP = 0, /* part of the environment: hashed and compared */
	FLEETKEY_SELF,	   /* the fleet object itself */
	FLEETKEY_IDENTITY, /* names the node or a board: differs everywhere */
	FLEETKEY_VOLATILE  /* changes between runs: null unless check --volatile */
};

enum fleetkey_kind fleetkeys_kind(const char *pattern);

#endif
