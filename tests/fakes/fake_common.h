/* fake_common: shared by the fake driver libraries (placeholder). */
#ifndef CD_FAKE_COMMON_H
#define CD_FAKE_COMMON_H
#endif
