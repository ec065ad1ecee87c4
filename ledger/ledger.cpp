// File: ledger/ledger.cpp (being written)
