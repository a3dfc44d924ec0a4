// SPDX-License-Identifier: MIT
// The render side of ParticleWorld culling: a CullView (pip3d) as the runtime's VisibilityTest.
//
// Thread safety: immutable after construction; visible() may be called from any thread.
// Allocation: never.
#pragma once

#include <mote/render/cull_view.h>
#include <mote/runtime/world.h>

namespace mote::render {

/// An emitter's bounds box is visible when its bounding sphere (the box's centre, half its
/// diagonal) passes CullView::testSphere — conservative: a box partly in view is never culled,
/// and one outside may be kept when its sphere reaches into the view. Non-finite bounds count as
/// visible. The CullView is borrowed and must outlive this object (rebuild it every frame).
class CullViewVisibility final : public VisibilityTest {
 public:
  explicit CullViewVisibility(const CullView& view) noexcept : view_(&view) {}
  bool visible(const Bounds& bounds) const noexcept override;

 private:
  const CullView* view_;
};

}  // namespace mote::render
