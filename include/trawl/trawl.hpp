// trawl/trawl.hpp — umbrella header: the whole public API of the trawl library.
#pragma once

#include "trawl/approx.hpp"
#include "trawl/device.hpp"
#include "trawl/error.hpp"
#include "trawl/exact.hpp"
#include "trawl/genome.hpp"
#include "trawl/gpu.hpp"
#include "trawl/hit.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"
